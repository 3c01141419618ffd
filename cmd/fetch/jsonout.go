package main

import (
	"encoding/json"
	"fmt"
)

// marshalJSON is json.Marshal for output meant for a terminal or a parser
// (see escapeControls).
func marshalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return escapeControls(b), nil
}

// escapeControls rewrites the JSON text b so that it holds no raw control
// character: encoding/json escapes the C0 controls (U+0000–U+001F) but
// writes DEL (U+007F) and the C1 controls (U+0080–U+009F, among them CSI,
// U+009B, which a terminal takes as the start of a command) as they are.
// Outside strings JSON has no such characters, so each becomes a \u
// escape wherever it is. b is returned when it holds none.
func escapeControls(b []byte) []byte {
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
