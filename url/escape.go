package url

import (
	"strings"
)

// Unescape decodes every %XX escape in s (RFC 1738 §2.2). It reports an
// *Error when a '%' is not followed by two hexadecimal digits.
func Unescape(s string) (string, error) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", &Error{Input: s, Offset: i, Expected: "two hex digits after '%'"}
			}
			n++
			i += 2
		}
	}
	if n == 0 {
		return s, nil
	}
	return unescapeValid(s, n), nil
}

// unescape decodes a component already validated by the parser.
func unescape(s string) string {
	n := strings.Count(s, "%")
	if n == 0 {
		return s
	}
	return unescapeValid(s, n)
}

// appendUnescape appends s to buf with each escape decoded; a '%' that
// begins no escape stands for itself.
func appendUnescape(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			buf = append(buf, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		buf = append(buf, s[i])
	}
	return buf
}

func unescapeValid(s string, n int) string {
	var b strings.Builder
	b.Grow(len(s) - 2*n)
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Escape encodes s for use inside one URL component: every byte that is not
// unreserved (alpha, digit, safe, extra) and not listed in keep becomes %XX
// with upper-case hex digits. '%' is always encoded.
func Escape(s, keep string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if needsEscape(s[i], keep) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsEscape(c, keep) {
			writeEscape(&b, c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func needsEscape(c byte, keep string) bool {
	if c == '%' {
		return true
	}
	return !isUnreserved(c) && strings.IndexByte(keep, c) < 0
}

// Keep-sets for Escape, one per component, from the BNF of RFC 1738 §5.
const (
	// KeepUser is what may stay unencoded in a user or password.
	KeepUser = ";?&="
	// KeepSegment is what may stay unencoded in an FTP, file or Prospero path segment.
	KeepSegment = "?:@&="
	// KeepHTTPSegment is what may stay unencoded in an HTTP path segment.
	KeepHTTPSegment = ";:@&="
	// KeepSearch is what may stay unencoded in an HTTP search part.
	KeepSearch = ";:@&="
	// KeepGopher is what may stay unencoded in a gopher selector, search or
	// Gopher+ string (xchar: reserved characters are allowed).
	KeepGopher = ";/?:@&="
	// KeepNone encodes every reserved character.
	KeepNone = ""
)

// EscapeSegment encodes one FTP, file or Prospero path segment: '/' and ';'
// become %2F and %3B, so the result is always a single segment.
func EscapeSegment(s string) string { return Escape(s, KeepSegment) }

// EscapeUserinfo encodes a user name or password for the login part.
func EscapeUserinfo(s string) string { return Escape(s, KeepUser) }
