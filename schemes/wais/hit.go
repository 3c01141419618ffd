package wais

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rfc1738/fetch/url"
)

// Hit is one entry of a search result: a DocumentHeaderGroup.
type Hit struct {
	// Headline is the server's one-line description of the document.
	Headline string
	// Score is the relevance score; hits come best first.
	Score int64
	// Length is the document's length in bytes, or -1 when not given.
	Length int64
	// Lines is the document's line count, or 0 when not given.
	Lines int64
	// Types are the document's WAIS types ("TEXT", "WSRC", "HTML", ...).
	Types []string
	// Source and Date are as the server gave them.
	Source, Date string
	// DocID is the opaque DocumentID, to be sent back unchanged.
	DocID string
	// URL is the wais URL that retrieves the document: RFC 1738's form,
	// the DocumentID %-encoded, with libwww's length segment before it
	// (database/wtype/length/wpath) when the search gave the Length.
	// Parse it with url.ParseLenient.
	URL string
}

// Type returns the hit's first type, or "TEXT" when it has none.
func (h Hit) Type() string {
	if len(h.Types) > 0 && h.Types[0] != "" {
		return h.Types[0]
	}
	return "TEXT"
}

// noResultPrefix starts the Headline of the catalogue pseudo-hit that
// freeWAIS returns for a search that matched nothing (wais.md §9.7).
const noResultPrefix = "Search produced no result."

// isNoResult reports whether h is the "no hits" catalogue pseudo-hit.
func isNoResult(h Hit) bool { return strings.HasPrefix(h.Headline, noResultPrefix) }

// AppendLine appends the hit as one line of a rendered result list:
// score, type(s), length, headline and URL separated by tabs, ending with
// '\n'. Control characters in the headline become spaces, so the line is
// always one line. A length of -1 is written as "-".
func (h Hit) AppendLine(b []byte) []byte {
	b = strconv.AppendInt(b, h.Score, 10)
	b = append(b, '\t')
	if len(h.Types) == 0 {
		b = append(b, h.Type()...)
	}
	for i, t := range h.Types {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendClean(b, t)
	}
	b = append(b, '\t')
	if h.Length < 0 {
		b = append(b, '-')
	} else {
		b = strconv.AppendInt(b, h.Length, 10)
	}
	b = append(b, '\t')
	b = appendClean(b, h.Headline)
	b = append(b, '\t')
	b = append(b, h.URL...)
	return append(b, '\n')
}

// appendClean appends s with the characters that could act on a terminal
// or break the line as spaces: C0 controls (TAB, CR, LF, ESC, ...), DEL,
// C1 controls (as UTF-8 or as raw bytes) and format characters such as
// bidirectional overrides. Other bytes, Latin-1 included, are kept.
func appendClean(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			c := s[i]
			if c >= 0x80 && c < 0xa0 {
				c = ' '
			}
			b = append(b, c)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || unicode.Is(unicode.Cf, r):
			b = append(b, ' ')
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}

// ParseLine parses a line written by AppendLine (without its '\n') back
// into score, types, length, headline and URL; ok is false when the line
// does not have that shape. It lets a program read the rendered body of a
// search.
func ParseLine(line string) (h Hit, ok bool) {
	f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
	if len(f) != 5 {
		return Hit{}, false
	}
	score, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return Hit{}, false
	}
	h = Hit{Score: score, Types: strings.Split(f[1], ","), Length: -1, Headline: f[3], URL: f[4]}
	if f[2] != "-" {
		if h.Length, err = strconv.ParseInt(f[2], 10, 64); err != nil {
			return Hit{}, false
		}
	}
	if u, err := url.ParseLenient(h.URL); err == nil {
		if t, err := parseTarget(u); err == nil {
			h.DocID = t.DocID
		}
	}
	return h, true
}
