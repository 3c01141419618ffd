package url

import "strconv"

// errControl reports a raw control character (RFC 1738 §2.2: octets 00-1F
// and 7F must be encoded).
func errControl(off int) *Error {
	return &Error{Offset: off, Expected: "no control character"}
}

// checkXchars checks that s is *xchar: unreserved, reserved or an escape.
func checkXchars(s string, off int) *Error {
	for i := 0; ; i++ {
		if i = span(s, i, &xcharRun); i >= len(s) {
			return nil
		}
		c := s[i]
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
}

// countBad counts, for a lenient parser, the bytes of s that must be
// encoded: every byte that is not an xchar and every '%' that does not
// begin an escape. It refuses control characters.
func countBad(s string, off int) (int, *Error) {
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
			return 0, errControl(off + i)
		}
		bad++
	}
	return bad, nil
}

// scanLenient scans a lenient path up to its first '#', returning the index
// of the '#' (len(s) when none) and how many bytes before it need encoding.
// It refuses control characters.
func scanLenient(s string, off int) (hash, bad int, err *Error) {
	i := 0
	for {
		if i = span(s, i, &xcharRun); i >= len(s) {
			return len(s), bad, nil
		}
		switch c := s[i]; {
		case c == '#':
			return i, bad, nil
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			i += 2
		case isControl(c):
			return 0, 0, errControl(off + i)
		default:
			bad++
		}
		i++
	}
}

// appendEncodeBad appends s to buf with its bad bytes (see
// needsNormalize) encoded as %XX.
func appendEncodeBad(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsNormalize(s, i) {
			buf = append(buf, '%', upperhex[c>>4], upperhex[c&15])
		} else {
			buf = append(buf, c)
		}
	}
	return buf
}

func needsNormalize(s string, i int) bool {
	c := s[i]
	if c == '%' {
		return i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])
	}
	return !isXchar(c)
}
