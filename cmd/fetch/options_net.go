package main

import (
	"fmt"
	"net"
	"net/netip"
	neturl "net/url"
	"strings"

	"github.com/rfc1738/fetch/fetch"
)

// netConfig is what the connection options set: the proxy, the address
// family, and addresses given in place of the resolver's or the URL's.
type netConfig struct {
	proxy      *neturl.URL // -x; nil: the environment's
	noProxy    string      // --noproxy
	hasNoProxy bool
	ipVersion  int                     // -4, -6
	resolve    map[string][]netip.Addr // --resolve
	connectTo  map[string]string       // --connect-to
}

// netOptions are the connection options, after curl's.
var netOptions = []option{
	{long: "proxy", short: 'x', arg: "[SCHEME://][USER:PW@]HOST[:PORT]", help: "connect through this proxy (http, https, socks5, socks5h; port default 1080), every TCP scheme; default: $<scheme>_proxy, $ALL_PROXY",
		set: func(c *config, v string) error {
			if v == "" {
				c.net.proxy = nil
				return nil
			}
			p, err := fetch.ParseProxy(v)
			if err != nil {
				return err
			}
			c.net.proxy = p
			return nil
		}},
	{long: "noproxy", arg: "LIST", help: "hosts (names and the names under them, addresses, address/bits) reached without the proxy, comma-separated; * for all",
		set: func(c *config, v string) error { c.net.noProxy, c.net.hasNoProxy = v, true; return nil }},
	{long: "resolve", arg: "HOST:PORT:ADDR[,ADDR]", help: "use ADDR for HOST:PORT (PORT * for any) instead of resolving HOST; repeatable",
		set: func(c *config, v string) error {
			host, port, addrs, err := splitHostPortRest(v)
			if err != nil {
				return err
			}
			var ips []netip.Addr
			for _, a := range strings.Split(addrs, ",") {
				ip, err := netip.ParseAddr(strings.Trim(a, "[]"))
				if err != nil {
					return fmt.Errorf("%q is not an IP address", a)
				}
				ips = append(ips, ip)
			}
			if c.net.resolve == nil {
				c.net.resolve = map[string][]netip.Addr{}
			}
			c.net.resolve[joinKey(host, port)] = ips
			return nil
		}},
	{long: "connect-to", arg: "HOST1:PORT1:HOST2:PORT2", help: "connect to HOST2:PORT2 for HOST1:PORT1 (an empty part matches any, or keeps the original); the URL, Host and TLS name unchanged; repeatable",
		set: func(c *config, v string) error {
			h1, p1, rest, err := splitHostPortRest(v)
			if err != nil {
				return err
			}
			h2, p2, tail, err := splitHostPortRest(rest + ":")
			if err != nil || tail != "" {
				return fmt.Errorf("want HOST1:PORT1:HOST2:PORT2, got %q", v)
			}
			if c.net.connectTo == nil {
				c.net.connectTo = map[string]string{}
			}
			c.net.connectTo[joinKey(h1, p1)] = joinKey(h2, p2)
			return nil
		}},
	{long: "ipv4", short: '4', help: "connect to IPv4 addresses only",
		set: func(c *config, _ string) error { c.net.ipVersion = 4; return nil }},
	{long: "ipv6", short: '6', help: "connect to IPv6 addresses only",
		set: func(c *config, _ string) error { c.net.ipVersion = 6; return nil }},
}

// splitHostPortRest splits "HOST:PORT:REST", HOST possibly a bracketed
// IPv6 address, either part possibly empty.
func splitHostPortRest(v string) (host, port, rest string, err error) {
	s := v
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", "", fmt.Errorf("no ] in %q", v)
		}
		host, s = s[1:end], s[end+1:]
		if !strings.HasPrefix(s, ":") {
			return "", "", "", fmt.Errorf("want HOST:PORT:..., got %q", v)
		}
		s = s[1:]
	} else {
		var ok bool
		host, s, ok = strings.Cut(s, ":")
		if !ok {
			return "", "", "", fmt.Errorf("want HOST:PORT:..., got %q", v)
		}
	}
	port, rest, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", "", fmt.Errorf("want HOST:PORT:..., got %q", v)
	}
	if port != "" && port != "*" {
		var n int
		if _, err := fmt.Sscanf(port, "%d", &n); err != nil || n < 1 || n > 65535 || fmt.Sprint(n) != port {
			return "", "", "", fmt.Errorf("port %q is not a number from 1 to 65535", port)
		}
	}
	return strings.ToLower(host), port, rest, nil
}

// joinKey joins a host and a port, either possibly empty, as
// fetch.Client's Resolve and ConnectTo keys are.
func joinKey(host, port string) string {
	if host == "" {
		return ":" + port
	}
	return net.JoinHostPort(host, port)
}

// apply sets the Client's connection settings.
func (n *netConfig) apply(cl *fetch.Client, getenv func(string) string) {
	switch {
	case n.proxy != nil:
		cl.Proxy = fetch.ProxyAll(n.proxy, n.noProxy)
	case envNamesProxy(getenv):
		env := getenv
		if n.hasNoProxy {
			env = func(k string) string {
				if strings.EqualFold(k, "no_proxy") {
					return n.noProxy
				}
				return getenv(k)
			}
		}
		cl.Proxy = fetch.ProxyFromEnvironment(env)
	}
	cl.IPVersion = n.ipVersion
	cl.Resolve = n.resolve
	cl.ConnectTo = n.connectTo
}

// envNamesProxy reports whether the environment names a proxy for any
// scheme. When it does not, the Client is left without a Proxy, so that
// its requests carry no proxy settings at all.
func envNamesProxy(getenv func(string) string) bool {
	for _, s := range []string{"all", "http", "https", "ftp", "ftps", "gopher", "gophers", "news", "snews", "nntp", "nntps", "telnet", "wais"} {
		if getenv(s+"_proxy") != "" || getenv(strings.ToUpper(s)+"_PROXY") != "" {
			return true
		}
	}
	return false
}
