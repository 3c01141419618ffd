package url

import "strings"

// loginScan is what the scan for the end of a login learnt on the way,
// as indexes into the login, -1 for none: the last '@'; after it, the first
// ':' and the first byte that is neither ':' nor a lenient host byte. fast
// reports that colon and bad may be used.
type loginScan struct {
	at, colon, bad int
	fast           bool
}

// scanLogin finds the end of the login at the start of s: the first '/'
// (or, for a lenient parser, '#'). One scan learns on the way the last '@',
// the first '?', and after the last '@' the first ':' and the first byte
// that cannot be in a lenient host, so that parseLogin need not look at
// the host again. fam is the scheme's family.
func (p Parser) scanLogin(s, fam string) (end int, ls loginScan) {
	end, q := len(s), -1
	ls.at, ls.colon, ls.bad = -1, -1, -1
	i := 0
scan:
	for {
		if i = span(s, i, &hostRun); i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '/' || c == '#' && p.Lenient:
			end = i
			break scan
		case c == '@':
			ls.at, ls.colon, ls.bad = i, -1, -1
		case c == ':':
			if ls.colon < 0 {
				ls.colon = i
			}
		default:
			if c == '?' && q < 0 {
				q = i
			}
			if ls.bad < 0 {
				ls.bad = i
			}
		}
		i++
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
	return end, ls
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
// text between "//" and the '/' that ends it, which starts at offset off,
// into b. info is nil for an unknown scheme.
func (p Parser) parseLogin(b *builder, login string, ls loginScan, off int, info *Scheme) *Error {
	if ls.at >= 0 {
		if !p.Lenient && info != nil && !loginAllowed(b.u.Scheme) {
			return &Error{Offset: off, Expected: "host (" + b.u.Scheme + " URLs have no user or password, RFC 1738 §5)"}
		}
		if err := p.parseUserinfo(b, login[:ls.at], off); err != nil {
			return err
		}
		off += ls.at + 1
		login = login[ls.at+1:]
	}
	host, port, hasPort, err := p.splitHostPort(login, ls, off)
	if err != nil {
		return err
	}
	if host == "" && info != nil && info.Name != "file" {
		return &Error{Offset: off, Expected: "host"}
	}
	b.u.Host = host
	if !hasPort {
		return nil
	}
	poff := off + len(login) - len(port)
	if !p.Lenient && info != nil && info.Name == "file" {
		return &Error{Offset: poff - 1, Expected: "'/' after the host (a file URL has no port, RFC 1738 §3.10)"}
	}
	if port == "" {
		if !p.Lenient {
			return &Error{Offset: poff, Expected: "port digits"}
		}
		return nil
	}
	b.u.Port, err = parsePort(port, poff)
	return err
}

// parseUserinfo parses user [ ":" password ], which starts at offset off,
// into b's Userinfo.
func (p Parser) parseUserinfo(b *builder, userinfo string, off int) *Error {
	name, pass, hasPass := userinfo, "", false
	if c := strings.IndexByte(userinfo, ':'); c >= 0 {
		name, pass, hasPass = userinfo[:c], userinfo[c+1:], true
	}
	nameEsc, err := p.userPart(name, off)
	if err != nil {
		return err
	}
	passEsc, err := p.userPart(pass, off+len(name)+1)
	if err != nil {
		return err
	}
	b.ui = Userinfo{Username: name, Password: pass, HasPassword: hasPass}
	b.hasUser, b.userEsc, b.passEsc = true, nameEsc, passEsc
	return nil
}

// splitHostPort splits hostport = host [ ":" port ], which starts at
// offset off, and checks the host: a host name or IPv4 address, or for a
// lenient parser a bracketed IPv6 literal. ls is the login's scan.
func (p Parser) splitHostPort(hostport string, ls loginScan, off int) (host, port string, hasPort bool, err *Error) {
	if len(hostport) > 0 && hostport[0] == '[' {
		return p.splitIPv6(hostport, off)
	}
	if ls.fast && ls.bad < 0 {
		// The scan saw only host bytes and ':' after the '@'.
		if ls.colon >= 0 {
			c := ls.colon - (ls.at + 1)
			return hostport[:c], hostport[c+1:], true, nil
		}
		return hostport, "", false, nil
	}
	host = hostport
	if c := strings.IndexByte(hostport, ':'); c >= 0 {
		host, port, hasPort = hostport[:c], hostport[c+1:], true
	}
	if p.Lenient && p.MapHost != nil && !isASCII(host) {
		mapped, merr := p.MapHost(host)
		if merr != nil {
			return "", "", false, &Error{Offset: off, Expected: "an international host name that maps to ASCII (" + merr.Error() + ")"}
		}
		host = mapped
	}
	if i, ok := p.checkHost(host); !ok {
		if i < len(host) && isControl(host[i]) {
			return "", "", false, errControl(off + i)
		}
		return "", "", false, &Error{Offset: off + i, Expected: "host name or IPv4 address"}
	}
	return host, port, hasPort, nil
}

// splitIPv6 splits "[" IPv6 "]" [ ":" port ], which starts at offset off.
func (p Parser) splitIPv6(hostport string, off int) (host, port string, hasPort bool, err *Error) {
	if !p.Lenient {
		return "", "", false, &Error{Offset: off, Expected: "host name or IPv4 address (IPv6 literals need a lenient parser)"}
	}
	for i := 0; i < len(hostport); i++ {
		if isControl(hostport[i]) {
			return "", "", false, errControl(off + i)
		}
	}
	rb := strings.IndexByte(hostport, ']')
	if rb < 0 {
		return "", "", false, &Error{Offset: off + len(hostport), Expected: "']' closing the IPv6 address"}
	}
	host = hostport[1:rb]
	if !validIPv6(host) {
		return "", "", false, &Error{Offset: off + 1, Expected: "IPv6 address"}
	}
	after := hostport[rb+1:]
	if after == "" {
		return host, "", false, nil
	}
	if after[0] != ':' {
		return "", "", false, &Error{Offset: off + rb + 1, Expected: "':' port or '/'"}
	}
	return host, after[1:], true, nil
}

// parsePort parses port = digits, a number from 1 to 65535, which starts
// at offset off.
func parsePort(port string, off int) (int, *Error) {
	n := 0
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			if isControl(port[i]) {
				return 0, errControl(off + i)
			}
			return 0, &Error{Offset: off + i, Expected: "port digits"}
		}
		n = n*10 + int(port[i]-'0')
		if n > 65535 {
			return 0, &Error{Offset: off, Expected: "port from 1 to 65535"}
		}
	}
	if n == 0 {
		return 0, &Error{Offset: off, Expected: "port from 1 to 65535"}
	}
	return n, nil
}

// userPart validates a user or password:
// *[ uchar | ";" | "?" | "&" | "=" ], returning how many escapes it holds
// for builder.url to decode. A lenient parser takes any byte but a control
// character, and a '%' that begins no escape stands for itself.
func (p Parser) userPart(s string, off int) (escapes int, err *Error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				escapes++
				i += 2
				continue
			}
			if !p.Lenient {
				return 0, &Error{Offset: off + i, Expected: "two hex digits after '%'"}
			}
		case isUnreserved(c) || c == ';' || c == '?' || c == '&' || c == '=':
		default:
			if isControl(c) {
				return 0, errControl(off + i)
			}
			if !p.Lenient {
				return 0, &Error{Offset: off + i, Expected: "user or password character (encode others as %XX)"}
			}
		}
	}
	return escapes, nil
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

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
