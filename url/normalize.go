package url

import "strings"

// Normalize returns the canonical equivalent of u: a new URL that names
// the same resource, written one way, so that two URLs for one resource
// normalize to the same string (for deduplication). u is not modified. The
// rules, each an equivalence RFC 1738 states:
//
//   - The scheme is lower case (§2.1: upper and lower case letters are
//     equivalent in scheme names; the parser already lower-cases it).
//
//   - The host is lower case (§3.1: a fully qualified domain name, and
//     domain names ignore case, RFC 1034 §3.1).
//
//   - A port equal to the scheme's default port is dropped (§3.1: an
//     omitted port is the default port).
//
//   - An escape of an unreserved character is decoded (§2.2: characters
//     that need no encoding may be encoded "as long as they are not being
//     used for a reserved purpose", and unreserved ones never are), and
//     the hex digits of every other escape are upper case (§2.2's hex takes
//     either case). In http and https URLs only letters, digits and "-._"
//     are decoded: servers give "$+!*'()," meanings of their own (a '+' in
//     a form's query is a space, "%2B" a plus), which RFC 3986 §2.2
//     acknowledges by making them reserved. In gopher URLs the reserved
//     characters are decoded too: the type and selector are decoded whole
//     and only TAB (%09, always encoded) separates anything (§3.4).
//
//   - Every known scheme with the "//" syntax ends its host and port with
//     "/" (§3.1: "/<url-path>" may be omitted, so "http://h" is
//     "http://h/", §3.3); for http, "http://h?q" is "http://h/?q".
//
//   - A gopher URL with an empty path gets the type "1" it defaults to
//     (§3.4): "gopher://h", "gopher://h/" and "gopher://h/1" are one URL.
//
//   - An FTP typecode is lower case (§3.2.2's typecode takes "A" or "a");
//     ";type=" is kept, since it changes what is transferred.
//
//   - A file URL's host "localhost" is the empty host (§3.10: both name
//     the machine the URL is interpreted on).
//
//   - The fragment is dropped: it is not part of the URL (RFC 1738's
//     appendix; the lenient parser keeps it for display).
//
//   - In http, https, ftp and file URLs, "." and ".." path segments are
//     removed as RFC 3986 §5.2.4 removes them (a ".." above the root is
//     dropped): "http://h/a/./b/../c" is "http://h/a/c". A crawler must
//     not see one resource under two names, nor let "/a/../../x" pass for
//     a path below "/a/". An escaped dot ("%2E") counts as a dot, as the
//     unreserved escape it is. A parameter (";p", RFC 1808 §2.4.3) is part
//     of its segment: "/a;p/../b" is "/b". Gopher selectors are opaque
//     (§3.4) and keep their dots.
//
// What the RFC leaves to the server is kept: the case of paths, users and
// passwords, the order of a query, and reserved characters, encoded or
// not. Normalize is idempotent, and its result's String parses back to an
// equal URL.
func (u *URL) Normalize() *URL {
	n := *u
	if u.User != nil {
		ui := *u.User
		n.User = &ui
	}
	n.Scheme = lower(u.Scheme)
	n.Host = lower(u.Host)
	n.Fragment, n.HasFragment = "", false
	info, known := LookupScheme(n.Scheme)
	if !known {
		n.Path = normalizeEscapes(n.Path, isUnreserved)
		return &n
	}
	if n.Port == info.DefaultPort {
		n.Port = 0
	}
	if info.Hier {
		n.Slash = true
	}
	fam := family(n.Scheme)
	switch fam {
	case "http":
		n.Path = normalizeEscapes(n.Path, isHTTPUnreserved)
	case "gopher":
		n.Path = normalizeEscapes(n.Path, isXchar)
	default:
		n.Path = normalizeEscapes(n.Path, isUnreserved)
	}
	switch fam {
	case "gopher":
		if n.Path == "" {
			n.Path = "1"
		}
	case "ftp":
		body, code := splitTypecode(n.Path)
		n.Path = removeDots(body)
		if code != "" {
			n.Path += ";type=" + code
		}
	case "http":
		p, q, hasQ := strings.Cut(n.Path, "?")
		if p = removeDots(p); hasQ {
			p += "?" + q
		}
		n.Path = p
	case "file":
		if n.Host == "localhost" {
			n.Host = ""
		}
		n.Path = removeDots(n.Path)
	}
	return &n
}

// removeDots removes the "." and ".." segments of a url-path (the text
// after the host's "/") as RFC 3986 §5.2.4 does for "/"+path: a ".." with
// nothing above it is dropped, and a path whose last segment was a dot
// segment ends in "/". It allocates only when it changes path.
func removeDots(path string) string {
	if !hasDotSegment(path) {
		return path
	}
	segs := strings.Split(path, "/")
	out := make([]string, 0, len(segs))
	dirty := false
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			dirty = true
		case "..":
			dirty = true
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
			continue
		}
		if last {
			out = append(out, "")
		}
	}
	if !dirty {
		return path
	}
	return strings.Join(out, "/")
}

// hasDotSegment reports whether a '/'-separated path has a "." or ".."
// segment, without splitting it: most paths have dots ("a.html") but no
// dot segment.
func hasDotSegment(p string) bool {
	for i := 0; i < len(p); i++ {
		k := strings.IndexByte(p[i:], '.')
		if k < 0 {
			return false
		}
		i += k
		if i == 0 || p[i-1] == '/' {
			j := i + 1
			if j < len(p) && p[j] == '.' {
				j++
			}
			if j == len(p) || p[j] == '/' {
				return true
			}
		}
	}
	return false
}

// isHTTPUnreserved reports whether c is a letter, a digit, '-', '.' or
// '_': the characters of RFC 1738's unreserved set that RFC 3986 §2.3 also
// calls unreserved ('~' is unsafe in RFC 1738 and stays encoded).
func isHTTPUnreserved(c byte) bool {
	return class[c]&(cAlpha|cDigit) != 0 || c == '-' || c == '.' || c == '_'
}

// normalizeEscapes decodes each escape in s of a byte that decode accepts
// and upper-cases the hex digits of the others. It allocates only when it
// changes s.
func normalizeEscapes(s string, decode func(byte) bool) string {
	changes := false
	for i := strings.IndexByte(s, '%'); i >= 0 && i+2 < len(s); i++ {
		if s[i] != '%' || !isHex(s[i+1]) || !isHex(s[i+2]) {
			continue
		}
		if decode(unhex(s[i+1])<<4|unhex(s[i+2])) || isLowerHex(s[i+1]) || isLowerHex(s[i+2]) {
			changes = true
			break
		}
		i += 2
	}
	if !changes {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			c := unhex(s[i+1])<<4 | unhex(s[i+2])
			if decode(c) {
				b.WriteByte(c)
			} else {
				writeEscape(&b, c)
			}
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isLowerHex(c byte) bool { return 'a' <= c && c <= 'f' }
