package ftp

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// escape shows server text safely on a terminal: control characters (C0
// but TAB, DEL, C1) and bytes that are not UTF-8 become Go escapes such
// as \x1b, so that a reply cannot move the cursor, retitle the window or
// clear the screen of whoever reads an error or a trace.
func escape(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case isControl(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isControl(r rune) bool {
	return r < 0x20 && r != '\t' || r >= 0x7f && r < 0xa0
}
