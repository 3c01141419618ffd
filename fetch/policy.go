package fetch

import (
	"errors"
	"slices"
	"strings"

	"github.com/rfc1738/fetch/url"
)

// Policy is the safety policy: what a URL, its credentials and the
// addresses it leads to may hold. The Client applies it twice: to each
// request before its handler runs (Check), and to every address a handler
// dials, at dial time (see Request.DialContext). Its zero value is the strict
// default: no decoded CR, LF or NUL in a protocol line (RFC 1738 §6), no
// well-known port of another protocol, and no hop from a public address to
// a private one.
type Policy struct {
	// AllowPortOverride permits a port below 1024 that is another
	// protocol's well-known port (25, 110, 143, ...). Default: refused,
	// both in URLs and in every address dialed.
	AllowPortOverride bool
	// Schemes, when not empty, is the list of schemes that may be
	// fetched; any other is refused. Hops (redirects, referrals) are held
	// to it too. Empty means every registered scheme.
	Schemes []string
	// DenyPrivate refuses to dial loopback, private (RFC 1918, fc00::/7),
	// link-local (169.254.0.0/16, which holds the cloud metadata address
	// 169.254.169.254, and fe80::/10), unspecified, "this network"
	// (0.0.0.0/8) and multicast addresses, IPv4-mapped IPv6 forms
	// included. The check is made on the resolved address of every dial
	// (a proxy's included), and again on a pooled connection before it is
	// reused, so a DNS answer cannot smuggle such an address in. Without
	// DenyPrivate, a hop from a public address to a private one is still
	// refused.
	DenyPrivate bool
}

// badPorts are the ports below 1024 of the Fetch Standard's bad-port list:
// services that a URL of another scheme must not be able to talk to.
var badPorts = map[int]bool{
	1: true, 7: true, 9: true, 11: true, 13: true, 15: true, 17: true, 19: true, 20: true,
	21: true, 22: true, 23: true, 25: true, 37: true, 42: true, 43: true, 53: true, 69: true,
	77: true, 79: true, 87: true, 95: true, 101: true, 102: true, 103: true, 104: true,
	109: true, 110: true, 111: true, 113: true, 115: true, 117: true, 119: true, 123: true,
	135: true, 137: true, 139: true, 143: true, 161: true, 179: true, 389: true, 427: true,
	465: true, 512: true, 513: true, 514: true, 515: true, 526: true, 530: true, 531: true,
	532: true, 540: true, 548: true, 554: true, 556: true, 563: true, 587: true, 601: true,
	636: true, 989: true, 990: true, 993: true, 995: true,
}

// Check reports whether u may be fetched: its scheme is allowed (Schemes),
// no decoded CR, LF or NUL in any component that reaches a protocol line,
// no TAB in the credentials or in an FTP, NNTP, news or HTTP component (TAB
// is legal only as gopher's %09 separator), and no port of another
// protocol. A refusal is an *Error of Kind Refused. Check looks at the URL
// only; the addresses it leads to are checked when they are dialed.
func (p Policy) Check(u *url.URL) error {
	if len(p.Schemes) > 0 && !slices.Contains(p.Schemes, u.Scheme) {
		return Errorf(Refused, "scheme %q is not among the allowed schemes", u.Scheme)
	}
	if err := checkUser(u.User); err != nil {
		return err
	}
	fam := u.Family()
	tabBad := fam == "ftp" || fam == "nntp" || fam == "news" || fam == "http"
	if fam == "gopher" {
		g := u.Gopher()
		for _, s := range []string{g.Type, g.Selector, g.Search, g.Plus} {
			if what := badBytes(s, true); what != "" {
				return Errorf(Refused, "the gopher request would hold a decoded %s (RFC 1738 §6)", what)
			}
		}
	} else if fam == "wais" {
		// A WAIS document id (wpath) is opaque binary data sent inside a
		// length-prefixed field, never on a line, so any byte is safe
		// there; the database, search words and type are checked.
		w := u.WAIS()
		for _, s := range []string{w.Database, w.Search, w.WType} {
			if what := badBytes(s, false); what != "" {
				return Errorf(Refused, "the WAIS request would hold a decoded %s (RFC 1738 §6)", what)
			}
		}
	} else if what := badEscapes(u.Path, tabBad); what != "" {
		return Errorf(Refused, "the URL path holds a decoded %s (RFC 1738 §6)", what)
	}
	return p.checkPort(u.Scheme, u.Port)
}

// ErrPortOverride is the cause of a refusal for a port that belongs to
// another protocol; Policy.AllowPortOverride lifts it.
var ErrPortOverride = errors.New("the port belongs to another protocol")

// checkPort refuses a port below 1024 that is another protocol's, unless
// it is scheme's own or the policy allows overrides.
func (p Policy) checkPort(scheme string, port int) error {
	if port == 0 || port >= 1024 || !badPorts[port] || p.AllowPortOverride {
		return nil
	}
	if s, ok := url.LookupScheme(scheme); ok && s.OwnsPort(port) {
		return nil
	}
	return Errorf(Refused, "port %d: %w", port, ErrPortOverride)
}

// checkUser refuses credentials holding a decoded CR, LF, NUL or TAB,
// wherever they came from: the URL, or Request.User (a user name given
// outside the URL reaches the same protocol lines).
func checkUser(ui *url.Userinfo) error {
	if ui == nil {
		return nil
	}
	if what := badBytes(ui.Username, true); what != "" {
		return Errorf(Refused, "the user name holds a decoded %s (RFC 1738 §6)", what)
	}
	if what := badBytes(ui.Password, true); what != "" {
		return Errorf(Refused, "the password holds a decoded %s (RFC 1738 §6)", what)
	}
	return nil
}

// badBytes names the first CR, LF, NUL (or TAB, when tab) in a decoded s.
func badBytes(s string, tab bool) string {
	for i := 0; i < len(s); i++ {
		if what := ctlName(s[i], tab); what != "" {
			return what
		}
	}
	return ""
}

// badEscapes names the first %0D, %0A, %00 (or %09, when tab) in a raw,
// still-encoded s, without decoding it.
func badEscapes(raw string, tab bool) string {
	for i := strings.IndexByte(raw, '%'); i >= 0 && i+2 < len(raw); {
		if raw[i+1] == '0' {
			var c byte
			switch raw[i+2] {
			case '0':
				c = 0
			case 'd', 'D':
				c = '\r'
			case 'a', 'A':
				c = '\n'
			case '9':
				c = '\t'
			default:
				c = 'x'
			}
			if what := ctlName(c, tab); what != "" {
				return what
			}
		}
		j := strings.IndexByte(raw[i+1:], '%')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return ""
}

func ctlName(c byte, tab bool) string {
	switch {
	case c == '\r':
		return "CR"
	case c == '\n':
		return "LF"
	case c == 0:
		return "NUL"
	case c == '\t' && tab:
		return "TAB"
	}
	return ""
}
