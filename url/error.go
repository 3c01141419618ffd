package url

import (
	"fmt"
	"strings"
)

// Error reports a malformed URL. Offset is the byte offset in Input where the
// parser stopped, and Expected says what it wanted there. Input has any
// password replaced by "****".
type Error struct {
	Input    string
	Offset   int
	Expected string
}

func (e *Error) Error() string {
	return fmt.Sprintf("parse %q: at offset %d: expected %s", e.Input, e.Offset, e.Expected)
}

// redactRaw hides the password of a URL that did not parse, for error
// messages. It cannot know where a malformed login ends, so it hides the
// widest text that could be one: from the first ':' after the authority's
// start (past "scheme:" and any slashes that follow it; the start of s when
// s does not begin with a scheme name) to the last '@' of s, wherever a '#',
// '/' or a second "//" stands in between. An error message may hide too
// much, never a password: "ftp://u:pw#x@h/", "ftp:/u:pw@h/" and
// "ftp:u:pw@h/" all show as "ftp...u:****@h/".
func redactRaw(s string) string {
	start := authorityStart(s)
	c := strings.IndexByte(s[start:], ':')
	if c < 0 {
		return s
	}
	c += start
	at := strings.LastIndexByte(s, '@')
	if at <= c+1 {
		return s
	}
	return s[:c+1] + "****" + s[at:]
}

// authorityStart returns the offset after s's "scheme:" and the slashes
// that follow it, or, when s does not begin with a scheme name and ':'
// (leading white space aside), the offset of its first byte that is not
// white space.
func authorityStart(s string) int {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	start := i
	for i < len(s) && class[s[i]]&cScheme != 0 {
		i++
	}
	if i == start || i == len(s) || s[i] != ':' {
		return start
	}
	i++
	for i < len(s) && s[i] == '/' {
		i++
	}
	return i
}
