package url

import (
	"strings"
)

// Match is one URL found in free text by Extract.
type Match struct {
	// URL is the URL as written, without its wrapper or "URL:" prefix and
	// with the white space inside a wrapper removed. It is not parsed: pass
	// it to a Parser.
	URL string
	// Start and End are the byte offsets of the match in the text,
	// wrapper included: text[Start:End] is what was read.
	Start, End int
	// Wrapped reports that the URL stood in angle brackets, "<URL:...>" or
	// "<...>", the delimiters RFC 1738's appendix recommends.
	Wrapped bool
	// Hyphenated reports that a line break came right after a '-'. The
	// appendix warns that a typesetter may have added that hyphen: URL keeps
	// it (no white space should follow a hyphen in a URL, so the break is
	// the suspicious part), and Unhyphenated is the other reading.
	Hyphenated bool
	// Unhyphenated is URL without the hyphens that ended a line; it is ""
	// unless Hyphenated.
	Unhyphenated string
}

// maxWrapped bounds the text read inside one "<...>" wrapper: a '<' with no
// '>' within it is not a wrapper.
const maxWrapped = 8 << 10

// Extract finds the URLs in free text, in order, as RFC 1738's appendix
// ("Recommendations for URLs in Context") describes:
//
//   - a URL in angle brackets, "<URL:scheme:...>" (any scheme) or
//     "<scheme:...>" (a scheme this package knows), with the white space
//     inside (spaces, tabs, line breaks) ignored, since long URLs are broken
//     across lines that way;
//   - a line break right after a hyphen, wrapped or not, with the white
//     space around it ignored; the match says the hyphen may not belong to
//     the URL (Match.Hyphenated, Match.Unhyphenated);
//   - an unwrapped URL of a known scheme ("http://...", "ftp://...",
//     "mailto:...", "news:...", also after a "URL:" prefix), which ends at
//     white space, '<', '>', '"' or a non-ASCII byte, with trailing
//     punctuation (". , ; : ! ? ' *" and an unbalanced ")", "]" or "}")
//     left out, as it is most likely the sentence's.
//
// Extract checks only the shape "scheme:something"; Parse each Match.URL
// to validate it. The result is nil when the text holds no URL.
func Extract(text string) []Match {
	var out []Match
	last := 0 // end of the previous match: matches never overlap
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '<':
			if m, ok := extractWrapped(text, i); ok {
				out = append(out, m)
				last = m.End
				i = m.End - 1
			}
		case ':':
			if m, ok := extractBare(text, i, last); ok {
				out = append(out, m)
				last = m.End
				i = m.End - 1
			}
		}
	}
	return out
}

// extractWrapped reads "<URL:...>" or "<scheme:...>" starting at text[lt].
func extractWrapped(text string, lt int) (Match, bool) {
	limit := min(len(text), lt+maxWrapped)
	gt := -1
	for j := lt + 1; j < limit; j++ {
		if c := text[j]; c == '>' {
			gt = j
			break
		} else if c == '<' {
			return Match{}, false
		}
	}
	if gt < 0 {
		return Match{}, false
	}
	inner := strings.TrimLeft(text[lt+1:gt], " \t\r\n")
	prefixed := len(inner) >= 4 && strings.EqualFold(inner[:4], "URL:")
	if prefixed {
		inner = inner[4:]
	}
	u, hyphen, alt := joinLines(inner)
	colon := schemeEnd(u)
	if colon < 0 || colon == len(u)-1 {
		return Match{}, false
	}
	if !prefixed && schemeIndex(u[:colon]) < 0 {
		return Match{}, false // "<joe@h.org>" and the like are not URLs
	}
	m := Match{URL: u, Start: lt, End: gt + 1, Wrapped: true, Hyphenated: hyphen}
	if hyphen {
		m.Unhyphenated = alt
	}
	return m, true
}

// joinLines removes the white space from a wrapped URL. hyphen reports a
// line break right after a '-'; alt is then the URL without such hyphens.
func joinLines(s string) (u string, hyphen bool, alt string) {
	if !strings.ContainsAny(s, " \t\r\n\f\v") {
		return s, false, ""
	}
	var b, a strings.Builder
	for i := 0; i < len(s); {
		if !isSpace(s[i]) {
			b.WriteByte(s[i])
			a.WriteByte(s[i])
			i++
			continue
		}
		j, lineBreak := i, false
		for j < len(s) && isSpace(s[j]) {
			lineBreak = lineBreak || s[j] == '\n' || s[j] == '\r'
			j++
		}
		if lineBreak && i > 0 && s[i-1] == '-' && j < len(s) {
			hyphen = true
			str := a.String()
			a.Reset()
			a.WriteString(str[:len(str)-1])
		}
		i = j
	}
	return b.String(), hyphen, a.String()
}

// schemeEnd returns the index of the ':' ending a scheme at the start of s,
// or -1.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			if i == 0 {
				return -1
			}
			return i
		}
		if class[c]&cScheme == 0 {
			return -1
		}
	}
	return -1
}

// extractBare reads an unwrapped URL of a known scheme whose ':' is at
// text[colon]; the scheme may not start before from.
func extractBare(text string, colon, from int) (Match, bool) {
	start := colon
	for start > from && class[text[start-1]]&cScheme != 0 {
		start--
	}
	// The scheme name starts after any ".+-" run: "(see.http://x)".
	for start < colon && !isAlpha(text[start]) {
		start++
	}
	si := schemeIndex(text[start:colon])
	if si < 0 {
		return Match{}, false
	}
	end := bareEnd(text, colon+1)
	u, alt, hyphen := text[start:end], "", false
	// The hyphen rule: "...internet-" at the end of a line goes on with
	// the next line's first word.
	for strings.HasSuffix(u, "-") {
		j := end
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		if j == len(text) || (text[j] != '\n' && text[j] != '\r') {
			break
		}
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		next := bareEnd(text, j)
		if next == j {
			break
		}
		if !hyphen {
			alt, hyphen = u, true
		}
		alt = alt[:len(alt)-1] + text[j:next]
		u += text[j:next]
		end = next
	}
	n := len(u) - len(trimTrailing(u))
	u, end = u[:len(u)-n], end-n
	if len(u) <= colon+1-start {
		return Match{}, false
	}
	body := u[colon+1-start:]
	if schemes[si].Hier && (len(body) < 3 || body[:2] != "//") {
		return Match{}, false
	}
	m := Match{URL: u, Start: start, End: end, Hyphenated: hyphen}
	if hyphen {
		m.Unhyphenated = alt[:len(alt)-n]
	}
	// A "URL:" prefix is part of the match.
	if start >= 4 && strings.EqualFold(text[start-4:start], "URL:") {
		m.Start = start - 4
	}
	return m, true
}

// bareEnd returns the end of the run of URL characters starting at i.
func bareEnd(text string, i int) int {
	for i < len(text) {
		c := text[i]
		if c <= ' ' || c >= 0x7f || c == '<' || c == '>' || c == '"' {
			break
		}
		i++
	}
	return i
}

// trimTrailing removes the punctuation that more likely ends the sentence
// than the URL: ". , ; : ! ? ' *" and a closing bracket without its
// opening one.
func trimTrailing(u string) string {
	for len(u) > 0 {
		c := u[len(u)-1]
		switch c {
		case '.', ',', ';', ':', '!', '?', '\'', '*':
		case ')':
			if strings.Count(u, "(") >= strings.Count(u, ")") {
				return u
			}
		case ']':
			if strings.Count(u, "[") >= strings.Count(u, "]") {
				return u
			}
		case '}':
			if strings.Count(u, "{") >= strings.Count(u, "}") {
				return u
			}
		default:
			return u
		}
		u = u[:len(u)-1]
	}
	return u
}
