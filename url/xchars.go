package url

import (
	"strconv"
	"strings"
)

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
			writeEscape(&b, c)
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
