package fetch

import (
	"net/netip"
	neturl "net/url"
	"os"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/url"
)

// ProxyFromEnvironment returns a ProxyFunc that chooses as curl does from
// the environment, read through getenv (nil means os.Getenv) now and,
// for each scheme's own variable, the first time the scheme asks: for a
// URL of scheme s, s_proxy (or S_PROXY: http_proxy, https_proxy,
// ftp_proxy, gopher_proxy, ...; HTTP_PROXY not under CGI, where
// REQUEST_METHOD is set), else all_proxy (or ALL_PROXY); never for
// a host that no_proxy (or NO_PROXY) lists, and, as net/http's
// ProxyFromEnvironment, never for localhost or a loopback address. A
// variable that does not parse (see ParseProxy) makes every URL that would
// use it fail with Kind Usage.
func ProxyFromEnvironment(getenv func(string) string) ProxyFunc {
	if getenv == nil {
		getenv = os.Getenv
	}
	get := func(name string) string {
		if v := getenv(strings.ToLower(name)); v != "" {
			return v
		}
		if name == "http_proxy" && getenv("REQUEST_METHOD") != "" {
			// Under CGI, HTTP_PROXY is the client's Proxy header
			// ("httpoxy"): net/http and curl ignore it too.
			return ""
		}
		return getenv(strings.ToUpper(name))
	}
	all := get("all_proxy")
	np := ParseNoProxy(get("no_proxy"))
	var chosen sync.Map // scheme → envProxy, each read and parsed once
	return func(u *url.URL) (*neturl.URL, error) {
		if np.Match(u.Host) || isLoopbackName(u.Host) {
			return nil, nil
		}
		if c, ok := chosen.Load(u.Scheme); ok {
			return c.(envProxy).p, c.(envProxy).err
		}
		v := get(u.Scheme + "_proxy")
		if v == "" {
			v = all
		}
		var c envProxy
		if v != "" {
			c.p, c.err = ParseProxy(v)
		}
		chosen.Store(u.Scheme, c)
		return c.p, c.err
	}
}

// envProxy is the environment's proxy for one scheme.
type envProxy struct {
	p   *neturl.URL
	err error
}

// isLoopbackName reports whether host is localhost or a loopback address.
func isLoopbackName(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && a.Unmap().IsLoopback()
}

// NoProxy is a parsed no_proxy list: the hosts to reach without a proxy.
type NoProxy struct {
	all      bool
	names    []string
	prefixes []netip.Prefix
}

// ParseNoProxy parses a list of hosts separated by commas (or spaces), as
// curl's --noproxy and the no_proxy variable hold it: "*" matches every
// host; a name matches itself and the names under it ("example.test" and
// ".example.test" both match "www.example.test"); an IP address matches
// itself, and an address/bits prefix the addresses in it.
func ParseNoProxy(list string) NoProxy {
	var np NoProxy
	for _, e := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		e = strings.ToLower(strings.TrimSuffix(e, "."))
		switch {
		case e == "*":
			np.all = true
		case strings.Contains(e, "/"):
			if p, err := netip.ParsePrefix(e); err == nil {
				np.prefixes = append(np.prefixes, p.Masked())
			}
		default:
			if a, err := netip.ParseAddr(strings.Trim(e, "[]")); err == nil {
				np.prefixes = append(np.prefixes, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
				continue
			}
			np.names = append(np.names, strings.TrimPrefix(e, "."))
		}
	}
	return np
}

// Match reports whether host (a name or an IP address, bracketed or not)
// is one the list names.
func (np NoProxy) Match(host string) bool {
	if np.all {
		return true
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		for _, p := range np.prefixes {
			if p.Contains(a.Unmap()) {
				return true
			}
		}
		return false
	}
	for _, n := range np.names {
		if host == n || strings.HasSuffix(host, "."+n) {
			return true
		}
	}
	return false
}
