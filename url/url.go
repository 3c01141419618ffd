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
// Parsing allocates once per URL (the URL, with its Userinfo when it has
// one) unless a lenient parser must encode something.
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

// Parser parses URLs. Its zero value is strict.
type Parser struct {
	// Lenient accepts raw spaces, national characters ('~', '{', ...),
	// non-ASCII bytes, stray '%' signs, a "#fragment", IPv6 literals and an
	// empty port, encoding what must be encoded. It also takes '_' in host
	// names, a '?' right after the host ("http://h?q"), a user in schemes
	// without a login, unencoded '/' in a WAIS wpath, and leading and
	// trailing white space (trimmed). Control characters are refused in
	// both modes. The default is strict.
	Lenient bool
}

// Parse parses rawURL strictly by the BNF of RFC 1738 §5.
func Parse(rawURL string) (*URL, error) { return Parser{}.Parse(rawURL) }

// ParseLenient parses rawURL as a lenient Parser does.
func ParseLenient(rawURL string) (*URL, error) { return Parser{Lenient: true}.Parse(rawURL) }

// Parse parses rawURL. A malformed URL yields an *Error giving the byte
// offset where parsing stopped; its Input has any password redacted.
func (p Parser) Parse(rawURL string) (*URL, error) {
	u, err := p.parse(rawURL)
	if err != nil {
		err.Input = redactRaw(rawURL)
		return nil, err
	}
	return u, nil
}

// urlWithUser holds a URL and its Userinfo in one allocation.
type urlWithUser struct {
	URL URL
	ui  Userinfo
}

// parse parses s. It allocates the URL once it knows whether the URL has
// a login (in one allocation with its Userinfo), and writes every field
// straight into it.
func (p Parser) parse(s string) (*URL, *Error) {
	var u *URL
	off := 0 // offset of s within the original input
	if p.Lenient {
		i, j := 0, len(s)
		for i < j && isSpace(s[i]) {
			i++
		}
		for j > i && isSpace(s[j-1]) {
			j--
		}
		off, s = i, s[i:j]
	}
	// Control characters are refused wherever they stand, by the scan of
	// each component below: the scheme, login, path and fragment scans.
	// scheme ":"
	colon := -1
	var info *Scheme
	fam, scheme := "", ""
	// The common cases first: most URLs are http or https.
	switch {
	case len(s) >= 8 && s[:8] == "https://":
		colon, info = 5, &schemes[10]
	case len(s) >= 7 && s[:7] == "http://":
		colon, info = 4, &schemes[1]
	}
	for i := 0; i < len(s) && info == nil; i++ {
		c := s[i]
		if c == ':' {
			colon = i
			break
		}
		if class[c]&cScheme == 0 {
			if isControl(c) {
				return nil, errControl(off + i)
			}
			return nil, &Error{Offset: off + i, Expected: "scheme character or ':'"}
		}
	}
	if colon < 0 {
		return nil, &Error{Offset: off + len(s), Expected: "':' after the scheme name"}
	}
	if colon == 0 {
		return nil, &Error{Offset: off, Expected: "scheme name"}
	}
	if info != nil {
		fam, scheme = "http", info.Name
	} else if i := schemeIndex(s[:colon]); i >= 0 {
		info = &schemes[i]
		fam = families[i]
		scheme = info.Name // static: no allocation for "HTTP:"
	} else {
		scheme = lower(s[:colon])
	}
	rest := s[colon+1:]
	off += colon + 1

	slashes := len(rest) >= 2 && rest[0] == '/' && rest[1] == '/'
	if (info != nil && info.Hier) || (info == nil && slashes) {
		if !slashes {
			return nil, &Error{Offset: off, Expected: `"//" after "` + scheme + `:"`}
		}
		rest = rest[2:]
		off += 2
		// One scan finds the end of the login: the first '/' (or, for a
		// lenient parser, '#'), and on the way the last '@', the first '?',
		// and after the last '@' the first ':' and the first byte that
		// cannot be in a lenient host, so that parseLogin need not look at
		// the host again.
		var ls loginScan
		end, q := len(rest), -1
		ls.at, ls.colon, ls.bad = -1, -1, -1
	scan:
		for i := 0; i < len(rest); i++ {
			// Eight host bytes at a time, the common case.
			for i+8 <= len(rest) && all8(rest[i:i+8], cHostLoose) {
				i += 8
			}
			if i >= len(rest) {
				break
			}
			c := rest[i]
			if class[c]&cHostLoose != 0 {
				continue
			}
			switch c {
			case '/':
				end = i
				break scan
			case '#':
				if p.Lenient {
					end = i
					break scan
				}
			case '@':
				ls.at, ls.colon, ls.bad = i, -1, -1
				continue
			case ':':
				if ls.colon < 0 {
					ls.colon = i
				}
				continue
			case '?':
				if q < 0 {
					q = i
				}
			}
			if ls.bad < 0 {
				ls.bad = i
			}
		}
		ls.fast = p.Lenient
		if p.Lenient && q >= 0 {
			// Real-world text ends the login at '?' as well ("http://h?q").
			// A '?' followed by an '@' belongs to a user or password (§3.1
			// allows it there), except in http URLs, which have no login.
			if ls.at < q || fam == "http" {
				end = q
				if ls.at > q {
					ls.at, ls.fast = -1, false
				}
			}
		}
		if ls.bad >= end {
			ls.bad = -1
		}
		if ls.colon >= end {
			ls.colon = -1
		}
		if ls.fast && ls.at < 0 && ls.bad < 0 && ls.colon < 0 && end > 0 {
			// The common case: a lenient host name and nothing else.
			u = &URL{Scheme: scheme, Hier: true, Host: rest[:end]}
		} else {
			if ls.at >= 0 {
				x := new(urlWithUser)
				x.URL.User = &x.ui
				u = &x.URL
			} else {
				u = new(URL)
			}
			u.Scheme, u.Hier = scheme, true
			if err := p.parseLogin(u, rest[:end], ls, off, info); err != nil {
				return nil, err
			}
		}
		if end < len(rest) && rest[end] == '/' {
			u.Slash = true
			end++
		}
		off += end
		rest = rest[end:]
	}
	if u == nil {
		u = &URL{Scheme: scheme}
	}
	raw := rest // before a lenient parser encodes it
	if p.Lenient {
		hash, bad, err := scanLenient(rest, off)
		if err != nil {
			return nil, err
		}
		if hash < len(rest) {
			frag, err := normalize(rest[hash+1:], off+hash+1)
			if err != nil {
				return nil, err
			}
			u.Fragment, u.HasFragment = frag, true
			rest, raw = rest[:hash], rest[:hash]
		}
		if bad > 0 {
			rest = encodeBad(rest, bad)
		}
	} else if err := checkXchars(rest, off); err != nil {
		return nil, err
	}
	u.Path = rest
	// (A lenient parser checks nothing more for http, gopher and file.)
	if info != nil && (!p.Lenient || (fam != "http" && fam != "gopher" && fam != "file")) {
		if err := p.checkScheme(u, fam, off); err != nil {
			if len(raw) != len(rest) && err.Offset >= off {
				// The offset is in the encoded path: map it back.
				err.Offset = off + rawOffset(raw, err.Offset-off)
			}
			return nil, err
		}
	}
	return u, nil
}

// all8 reports whether each of the eight bytes of s has a bit of mask.
func all8(s string, mask uint16) bool {
	if len(s) != 8 {
		return false
	}
	return class[s[0]]&class[s[1]]&class[s[2]]&class[s[3]]&
		class[s[4]]&class[s[5]]&class[s[6]]&class[s[7]]&mask != 0
}

// rawOffset maps offset n in the lenient encoding of raw (see encodeBad)
// back to the offset in raw of the byte it came from.
func rawOffset(raw string, n int) int {
	j := 0 // offset in the encoding
	for i := 0; i < len(raw); i++ {
		if j >= n {
			return i
		}
		if needsNormalize(raw, i) {
			j += 3
		} else {
			j++
		}
	}
	return len(raw)
}

// loginAllowed reports whether the BNF of RFC 1738 §5 gives the scheme a
// login (user and password) rather than a bare hostport: ftp and telnet do,
// and so do schemes the package does not know.
func loginAllowed(scheme string) bool {
	switch family(scheme) {
	case "http", "gopher", "nntp", "wais", "prospero", "file":
		return false
	}
	return true
}

// parseLogin parses login = [ user [ ":" password ] "@" ] hostport, the
// text between "//" and the '/' that ends it, which starts at offset off.
// info is nil for an unknown scheme.
// loginScan is what the scan for the end of a login learnt on the way,
// as indexes into the login, -1 for none: the last '@'; after it, the first
// ':' and the first byte that is neither ':' nor a lenient host byte. fast
// reports that colon and bad may be used.
type loginScan struct {
	at, colon, bad int
	fast           bool
}

// u.User, when at >= 0, points at the Userinfo to fill.
func (p Parser) parseLogin(u *URL, login string, ls loginScan, off int, info *Scheme) *Error {
	at := ls.at
	if at >= 0 {
		if !p.Lenient && info != nil && !loginAllowed(u.Scheme) {
			return &Error{Offset: off, Expected: "host (" + u.Scheme + " URLs have no user or password, RFC 1738 §5)"}
		}
		userinfo := login[:at]
		name, pass, hasPass := userinfo, "", false
		if c := strings.IndexByte(userinfo, ':'); c >= 0 {
			name, pass, hasPass = userinfo[:c], userinfo[c+1:], true
		}
		dn, err := p.userPart(name, off)
		if err != nil {
			return err
		}
		dp, err := p.userPart(pass, off+len(name)+1)
		if err != nil {
			return err
		}
		*u.User = Userinfo{Username: dn, Password: dp, HasPassword: hasPass}
		off += at + 1
		login = login[at+1:]
	}
	hostport := login
	host, port := hostport, ""
	hasPort := false
	if len(hostport) > 0 && hostport[0] == '[' {
		if !p.Lenient {
			return &Error{Offset: off, Expected: "host name or IPv4 address (IPv6 literals need a lenient parser)"}
		}
		for i := 0; i < len(hostport); i++ {
			if isControl(hostport[i]) {
				return errControl(off + i)
			}
		}
		rb := strings.IndexByte(hostport, ']')
		if rb < 0 {
			return &Error{Offset: off + len(hostport), Expected: "']' closing the IPv6 address"}
		}
		host = hostport[1:rb]
		if !validIPv6(host) {
			return &Error{Offset: off + 1, Expected: "IPv6 address"}
		}
		after := hostport[rb+1:]
		if after != "" {
			if after[0] != ':' {
				return &Error{Offset: off + rb + 1, Expected: "':' port or '/'"}
			}
			port, hasPort = after[1:], true
		}
	} else if ls.fast && ls.bad < 0 {
		// The scan saw only host bytes and ':' after the '@'.
		if ls.colon >= 0 {
			c := ls.colon - (at + 1)
			host, port, hasPort = hostport[:c], hostport[c+1:], true
		}
	} else {
		if c := strings.IndexByte(hostport, ':'); c >= 0 {
			host, port, hasPort = hostport[:c], hostport[c+1:], true
		}
		if i, ok := p.checkHost(host); !ok {
			if i < len(host) && isControl(host[i]) {
				return errControl(off + i)
			}
			return &Error{Offset: off + i, Expected: "host name or IPv4 address"}
		}
	}
	if host == "" && info != nil && info.Name != "file" {
		return &Error{Offset: off, Expected: "host"}
	}
	u.Host = host
	if hasPort {
		poff := off + len(hostport) - len(port)
		if !p.Lenient && info != nil && info.Name == "file" {
			return &Error{Offset: poff - 1, Expected: "'/' after the host (a file URL has no port, RFC 1738 §3.10)"}
		}
		if port == "" {
			if !p.Lenient {
				return &Error{Offset: poff, Expected: "port digits"}
			}
			return nil
		}
		n := 0
		for i := 0; i < len(port); i++ {
			if !isDigit(port[i]) {
				if isControl(port[i]) {
					return errControl(poff + i)
				}
				return &Error{Offset: poff + i, Expected: "port digits"}
			}
			n = n*10 + int(port[i]-'0')
			if n > 65535 {
				return &Error{Offset: poff, Expected: "port from 1 to 65535"}
			}
		}
		if n == 0 {
			return &Error{Offset: poff, Expected: "port from 1 to 65535"}
		}
		u.Port = n
	}
	return nil
}

// userPart validates and decodes a user or password:
// *[ uchar | ";" | "?" | "&" | "=" ].
func (p Parser) userPart(s string, off int) (string, *Error) {
	escapes := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				escapes = true
				i += 2
				continue
			}
			if !p.Lenient {
				return "", &Error{Offset: off + i, Expected: "two hex digits after '%'"}
			}
			escapes = true
		case isUnreserved(c) || c == ';' || c == '?' || c == '&' || c == '=':
		default:
			if isControl(c) {
				return "", errControl(off + i)
			}
			if !p.Lenient {
				return "", &Error{Offset: off + i, Expected: "user or password character (encode others as %XX)"}
			}
		}
	}
	if !escapes {
		return s, nil
	}
	if p.Lenient {
		n, _ := normalize(s, off)
		s = n
	}
	return unescape(s), nil
}

// checkHost validates host = hostname | hostnumber, returning the offset of
// the first bad byte. The empty host is left to the caller.
func (p Parser) checkHost(h string) (int, bool) {
	if p.Lenient {
		for i := 0; i < len(h); i++ {
			if class[h[i]]&cHostLoose == 0 {
				return i, false
			}
		}
		return 0, true
	}
	return checkHostStrict(h)
}

// checkHostStrict validates, by the BNF of RFC 1738 §5,
// hostname = *[ domainlabel "." ] toplabel (labels of alphanumerics and
// inner '-', the last starting with a letter) or
// hostnumber = digits "." digits "." digits "." digits.
func checkHostStrict(h string) (int, bool) {
	if h == "" {
		return 0, true
	}
	labels, allDigits := 0, true
	start := 0 // of the current label
	for i := 0; i <= len(h); i++ {
		if i < len(h) && h[i] != '.' {
			c := h[i]
			if !isAlpha(c) && !isDigit(c) && c != '-' {
				return i, false
			}
			if !isDigit(c) {
				allDigits = false
			}
			continue
		}
		// h[start:i] is a label.
		if i == start || h[start] == '-' {
			return start, false
		}
		if h[i-1] == '-' {
			return i - 1, false
		}
		labels++
		if i == len(h) && !isAlpha(h[start]) && !(allDigits && labels == 4) {
			return start, false
		}
		start = i + 1
	}
	return 0, true
}

func validIPv6(h string) bool {
	if h == "" || strings.Count(h, ":") < 2 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !isHex(c) && c != ':' && c != '.' {
			return false
		}
	}
	return true
}

// errControl reports a raw control character (RFC 1738 §2.2: octets 00-1F
// and 7F must be encoded).
func errControl(off int) *Error {
	return &Error{Offset: off, Expected: "no control character"}
}

// checkXchars checks that s is *xchar: unreserved, reserved or an escape.
func checkXchars(s string, off int) *Error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if class[c]&(cUnreserved|cReserved) != 0 {
			continue
		}
		if c == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return &Error{Offset: off + i, Expected: "two hex digits after '%'"}
			}
			i += 2
			continue
		}
		if isControl(c) {
			return errControl(off + i)
		}
		return &Error{Offset: off + i, Expected: "an encoded " + strconv.QuoteRune(rune(c)) + " (unsafe or national characters must be %XX)"}
	}
	return nil
}

// normalize encodes, for a lenient parser, every byte that is not an xchar
// and every '%' that does not begin an escape. It refuses control
// characters, and allocates only when it changes s.
func normalize(s string, off int) (string, *Error) {
	bad := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if class[c]&(cUnreserved|cReserved) != 0 {
			continue
		}
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			i += 2
			continue
		}
		if isControl(c) {
			return "", errControl(off + i)
		}
		bad++
	}
	if bad == 0 {
		return s, nil
	}
	return encodeBad(s, bad), nil
}

// scanLenient scans a lenient path up to its first '#', returning the index
// of the '#' (len(s) when none) and how many bytes before it need encoding.
// It refuses control characters.
func scanLenient(s string, off int) (hash, bad int, err *Error) {
	for i := 0; i < len(s); i++ {
		// Eight xchars at a time, the common case.
		for i+8 <= len(s) && all8(s[i:i+8], cXchar) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if class[c]&(cUnreserved|cReserved) != 0 {
			continue
		}
		switch {
		case c == '#':
			return i, bad, nil
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			i += 2
		case isControl(c):
			return 0, 0, errControl(off + i)
		default:
			bad++
		}
	}
	return len(s), bad, nil
}

// encodeBad returns s with its bad bytes (see needsNormalize), of which
// there are n, encoded as %XX.
func encodeBad(s string, n int) string {
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsNormalize(s, i) {
			b.WriteByte('%')
			b.WriteByte(upperhex[c>>4])
			b.WriteByte(upperhex[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func needsNormalize(s string, i int) bool {
	c := s[i]
	if c == '%' {
		return i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])
	}
	return !isXchar(c)
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

// Redacted is like String but shows any password as "****".
func (u *URL) Redacted() string { return u.format(true) }

func (u *URL) format(redact bool) string {
	var b strings.Builder
	b.Grow(len(u.Scheme) + len(u.Host) + len(u.Path) + 16)
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
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(u.Port))
		}
		if u.Slash {
			b.WriteByte('/')
		}
	}
	b.WriteString(u.Path)
	if u.HasFragment {
		b.WriteByte('#')
		b.WriteString(u.Fragment)
	}
	return b.String()
}
