package gopher

import (
	"bytes"
	"io"
	"net/http"
	"strings"

	"github.com/rfc1738/fetch/fetch"
)

// maxAttrs bounds the attribute block read to fill Resource.Header.
const maxAttrs = 64 << 10

// ParseAttributes returns the blocks of a Gopher+ attribute reply (§2.7)
// as header fields: each "+NAME: text" line begins a block named "+NAME"
// (as sent, upper-case by convention), whose values are the text after
// the colon, when there is any, and then each following line that begins
// with a space, less that space.
func ParseAttributes(attrs string) http.Header {
	h := http.Header{}
	name := ""
	for _, line := range strings.Split(attrs, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.HasPrefix(line, "+"):
			n, rest, _ := strings.Cut(line, ":")
			name = n
			if _, ok := h[name]; !ok {
				h[name] = nil
			}
			if rest = strings.TrimSpace(rest); rest != "" {
				h[name] = append(h[name], rest)
			}
		case name != "" && strings.HasPrefix(line, " "):
			h[name] = append(h[name], line[1:])
		}
	}
	return h
}

// withAttributes reads the attribute reply of an item ("!" request) into
// res.Header when it is at most maxAttrs bytes long; the Body still
// delivers every byte.
func withAttributes(res *fetch.Resource) error {
	b, err := io.ReadAll(io.LimitReader(res.Body, maxAttrs+1))
	if err != nil {
		return err
	}
	if len(b) <= maxAttrs {
		res.Header = ParseAttributes(string(b))
	}
	res.Body = &prefixed{r: io.MultiReader(bytes.NewReader(b), res.Body), c: res.Body}
	return nil
}

// prefixed is a Body whose first bytes were read ahead.
type prefixed struct {
	r io.Reader
	c io.Closer
}

func (p *prefixed) Read(b []byte) (int, error) { return p.r.Read(b) }
func (p *prefixed) Close() error               { return p.c.Close() }
