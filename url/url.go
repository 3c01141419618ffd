// Package url parses Uniform Resource Locators exactly as RFC 1738 defines
// them: the generic syntax of §2 and §5, the common Internet scheme syntax of
// §3.1, and a typed view for each of the ten schemes of §3.
//
// A Parser is strict by default: the input must match the BNF of §5, with
// unsafe and national characters encoded. A lenient Parser accepts what
// real-world text holds (raw spaces, '~', a "#fragment", IPv6 literals) and
// encodes it. Either way the parsed URL keeps the distinctions the RFC
// draws: no user versus an empty user, an explicit versus a default port, the
// raw (encoded) path versus its decoded parts.
//
// Extract finds URLs in free text as the RFC's appendix recommends
// ("<URL:...>" wrappers, white space and hyphens at line breaks).
//
// For crawlers, Normalize gives the one spelling of the URLs that name the
// same resource (by RFC 1738's equivalences), and ResolveReference turns
// a relative link into an absolute URL (RFC 1808).
//
// Parsing allocates once per URL: the URL, its Userinfo when it has one,
// and the bytes of any component the parser writes rather than slices out
// of the input (a decoded user or password, a lenient parser's encoding, a
// lower-cased scheme name), unless those exceed 4 KiB. A malformed URL
// allocates no URL, only its *Error and what the error's text needs.
package url

import (
	"strconv"
	"strings"
)

// URL is a parsed URL. The raw components (Path, Fragment) are kept encoded,
// exactly as parsed; the typed views (FTP, HTTP, Gopher, ...) decode them.
type URL struct {
	// Scheme is the scheme name, lower-cased.
	Scheme string
	// User is the login's user and password, decoded; nil when the URL has
	// no "user@" part. "ftp://@h/" has a non-nil User with an empty name.
	User *Userinfo
	// Host is the host name or address, without brackets for IPv6; "" when
	// the URL has none.
	Host string
	// Port is the explicit port, or 0 when the URL gives none.
	Port int
	// Slash reports whether a "/" followed the host and port. (A lenient
	// parser also ends the host and port at '?', as in "http://h?q": then
	// Slash is false and Path is "?q".)
	Slash bool
	// Path is the raw url-path after that "/" (still encoded), or for schemes
	// without "//" the whole scheme-specific part.
	Path string
	// Fragment is the raw text after '#', accepted by a lenient Parser only.
	Fragment string
	// HasFragment reports whether a '#' was present.
	HasFragment bool
	// Hier reports whether the URL used the "//" login syntax of §3.1.
	Hier bool
}

// Userinfo is the user and password of a login (RFC 1738 §3.1), decoded.
type Userinfo struct {
	Username    string
	Password    string
	HasPassword bool // "user:@host" has an empty password; "user@host" none
}

// User returns a Userinfo with a user name and no password.
func User(name string) *Userinfo { return &Userinfo{Username: name} }

// UserPassword returns a Userinfo with a user name and a password.
func UserPassword(name, password string) *Userinfo {
	return &Userinfo{Username: name, Password: password, HasPassword: true}
}

// hasUpper reports whether s has an ASCII upper-case letter.
func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// appendLower appends s to buf with ASCII letters lower-cased.
func appendLower(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// EffectivePort returns the explicit port, else the scheme's default port,
// else 0.
func (u *URL) EffectivePort() int {
	if u.Port != 0 {
		return u.Port
	}
	if s, ok := LookupScheme(u.Scheme); ok {
		return s.DefaultPort
	}
	return 0
}

// HostPort returns "host:port" with the effective port, bracketing an IPv6
// address, ready for net.Dial.
func (u *URL) HostPort() string {
	h := u.Host
	if strings.IndexByte(h, ':') >= 0 {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(u.EffectivePort())
}

// String returns the URL in canonical form, which parses back to an equal
// URL with the Parser that produced it.
func (u *URL) String() string { return u.format(false) }

// Redacted is like String but shows any password as "****". A URL
// without the "//" login syntax has no password the parser knows, but its
// text may still hold one in a login's shape ("x-foo:/u:pw@h/",
// "news:u:pw@h"): there, as in a parse error, everything from the first ':'
// after the scheme and its slashes to the last '@' is hidden.
func (u *URL) Redacted() string {
	if !u.Hier {
		return redactRaw(u.format(false))
	}
	return u.format(true)
}

func (u *URL) format(redact bool) string {
	var b strings.Builder
	b.Grow(len(u.Scheme) + len(u.Host) + len(u.Path) + 16)
	u.writeAuthority(&b, redact)
	b.WriteString(u.Path)
	if u.HasFragment {
		b.WriteByte('#')
		b.WriteString(u.Fragment)
	}
	return b.String()
}

// writeAuthority writes what comes before u's Path: "scheme:", and with
// the "//" syntax the login and the "/" after it when u has one.
func (u *URL) writeAuthority(b *strings.Builder, redact bool) {
	b.WriteString(u.Scheme)
	b.WriteByte(':')
	if u.Hier {
		b.WriteString("//")
		if u.User != nil {
			b.WriteString(EscapeUserinfo(u.User.Username))
			if u.User.HasPassword {
				b.WriteByte(':')
				if redact && u.User.Password != "" {
					b.WriteString("****")
				} else {
					b.WriteString(EscapeUserinfo(u.User.Password))
				}
			}
			b.WriteByte('@')
		}
		if strings.IndexByte(u.Host, ':') >= 0 {
			b.WriteByte('[')
			b.WriteString(u.Host)
			b.WriteByte(']')
		} else {
			b.WriteString(u.Host)
		}
		if u.Port != 0 {
			var n [20]byte
			b.WriteByte(':')
			b.Write(strconv.AppendInt(n[:0], int64(u.Port), 10))
		}
		if u.Slash {
			b.WriteByte('/')
		}
	}
}
