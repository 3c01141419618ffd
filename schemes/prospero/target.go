package prospero

import (
	"net"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// defaultPort is Prospero's UDP port.
const defaultPort = 1525

// target is one object on one server: where to ask, and what to ask for.
type target struct {
	host    string // as given in the URL, or as a link or FORWARDED names it
	port    int
	hsoname string // decoded
	version string // the object version: "0" for the current one
}

// server is the URL of t's server, without a path: its HostPort is the
// address to dial, its String the start of t's URL.
func (t target) server() *url.URL {
	port := t.port
	if port == defaultPort {
		port = 0
	}
	return &url.URL{Scheme: "prospero", Hier: true, Host: t.host, Port: port}
}

// targetOf returns the object a prospero URL names: the decoded hsoname up
// to the first ';' (a final "/" dropped), and the OBJECT-VERSION field when given (RFC 1738
// §3.11). Other fields are kept by the URL but send nothing.
func targetOf(u *url.URL) (target, error) {
	v := u.Prospero()
	// A directory's URL ends in "/" (see listBody.linkURL); the name
	// goes to the server without it, as the reference clients send it.
	name := v.HSOName
	if len(name) > 1 {
		name = strings.TrimSuffix(name, "/")
	}
	t := target{host: u.Host, port: u.EffectivePort(), hsoname: name, version: "0"}
	for _, f := range v.Fields {
		if strings.EqualFold(f.Name, "OBJECT-VERSION") && f.Value != "" {
			t.version = f.Value
		}
	}
	if t.port == 0 {
		t.port = defaultPort
	}
	if err := t.check(); err != nil {
		return t, err
	}
	return t, nil
}

// check refuses names that would break a request line (RFC 1738 §6), and
// a TAB, which reaches it even quoted.
func (t target) check() error {
	for _, s := range []string{t.hsoname, t.version} {
		if strings.ContainsAny(s, "\r\n\x00") {
			return fetch.Errorf(fetch.Refused, "the object name holds a decoded CR, LF or NUL (RFC 1738 §6)")
		}
		if strings.ContainsRune(s, '\t') {
			return fetch.Errorf(fetch.Refused, "the object name holds a decoded TAB, which would reach the request line")
		}
	}
	if strings.ContainsAny(t.version, " \t'") {
		return fetch.Errorf(fetch.Malformed, "OBJECT-VERSION %q is not one token", t.version)
	}
	return nil
}

// parseServer splits a Prospero host token, "NAME" or "NAME(PORT)" as
// dirsrv writes it into links ("LOCALHOST(21525)"), lower-casing the name.
// A missing port is 0.
func parseServer(s string) (host string, port int, ok bool) {
	host = s
	if i := strings.IndexByte(s, '('); i >= 0 && strings.HasSuffix(s, ")") {
		p, err := strconv.Atoi(s[i+1 : len(s)-1])
		if err != nil || p <= 0 || p > 65535 {
			return "", 0, false
		}
		host, port = s[:i], p
	}
	if host == "" || strings.ContainsAny(host, "/@?#;: \t") && !isIPv6(host) {
		return "", 0, false
	}
	return strings.ToLower(host), port, true
}

func isIPv6(h string) bool {
	ip := net.ParseIP(h)
	return ip != nil && ip.To4() == nil
}

// isLoopback reports whether host names this machine's loopback.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// resolveServer turns a server named in a reply into where to send the
// next request, relative to from, the server that named it. A server
// that calls itself LOCALHOST while we reach it over the loopback is the
// one we asked, at the address we used (dirsrv writes its own name into
// its links, and LOCALHOST when it knows no better one).
func resolveServer(from target, spec string) (host string, port int, ok bool) {
	host, port, ok = parseServer(spec)
	if !ok {
		return "", 0, false
	}
	if host == "localhost" && isLoopback(from.host) {
		return from.host, from.port, true
	}
	if port == 0 {
		port = defaultPort
	}
	return host, port, true
}

// urlOf returns the prospero URL of an object: the hsoname encoded segment
// by segment, so an absolute name gives the double slash of RFC 1738's
// examples ("prospero://host//srv/README"), and a version other than the
// current one as an OBJECT-VERSION field.
func urlOf(t target) string {
	var b strings.Builder
	b.WriteString(t.server().String())
	b.WriteByte('/')
	for i, seg := range strings.Split(t.hsoname, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(url.EscapeSegment(seg))
	}
	if t.version != "" && t.version != "0" {
		b.WriteString(";OBJECT-VERSION=" + url.EscapeSegment(t.version))
	}
	return b.String()
}
