package prospero

import "strconv"

// printable escapes the control characters (and invalid UTF-8) of text a
// server sent, so that printing it in an error or a trace cannot drive the
// terminal; printable text, UTF-8 included, is kept.
func printable(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
