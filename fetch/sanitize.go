package fetch

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize returns s with every character that could act on a terminal
// escaped: C0 controls (ESC, BEL, CR, LF, TAB, ...), DEL, C1 controls,
// other non-printing characters such as bidirectional overrides, and bytes
// that are not UTF-8. Escapes are written Go-style (\x1b, \u202e); a
// backslash stays as it is. Use it on all server-supplied text put in
// errors, traces and menus.
func Sanitize(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case printable(r):
			b.WriteString(s[i : i+n])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	return b.String()
}

// clean reports whether s needs no escaping; it is the fast path for the
// common all-ASCII printable text.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

func printable(r rune) bool {
	return r == ' ' || unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r)
}

// SanitizeJSON rewrites the JSON text b so that it holds no raw control
// character: encoding/json escapes the C0 controls (U+0000–U+001F) but
// writes DEL (U+007F) and the C1 controls (U+0080–U+009F, among them CSI,
// U+009B, which a terminal takes as the start of a command) as they are.
// Outside strings JSON has no such characters, so each becomes a \u
// escape wherever it is. b is returned when it holds none. Use it on JSON
// meant for a terminal or a parser that holds server-supplied text, as
// Sanitize on plain text.
func SanitizeJSON(b []byte) []byte {
	n := 0
	for i := 0; i < len(b); i++ {
		if b[i] == 0x7f || b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f {
			n++
		}
	}
	if n == 0 {
		return b
	}
	out := make([]byte, 0, len(b)+5*n)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == 0x7f:
			out = append(out, `\u007f`...)
		case b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f:
			out = fmt.Appendf(out, `\u%04x`, b[i+1])
			i++
		default:
			out = append(out, b[i])
		}
	}
	return out
}
