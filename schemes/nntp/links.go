package nntp

import (
	"encoding/base64"
	"io"
	"mime/quotedprintable"
	"strings"

	"github.com/rfc1738/fetch/url"
)

// MaxURLScan bounds how much of an article's body URLs reads.
const MaxURLScan = 8 << 20

// URLs reads the rest of the article's body, at most MaxURLScan bytes,
// and returns the URLs url.Extract finds in it, in order (see url.Extract
// for the forms recognised: "<URL:...>" wrappers across line breaks, bare
// URLs of known schemes). A body with Content-Transfer-Encoding
// quoted-printable or base64 is decoded first, so that soft line breaks do
// not cut URLs. The matches are not parsed: a crawler parses each, and its
// offsets are into the decoded body. A read failure is returned with the
// URLs found before it.
func (a *Article) URLs() ([]url.Match, error) {
	src := &errRecorder{r: io.LimitReader(a.Body, MaxURLScan)}
	var r io.Reader = src
	switch strings.ToLower(strings.TrimSpace(a.Header.Get("Content-Transfer-Encoding"))) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, newlineStripper{r})
	}
	// A decoding error keeps what was decoded; a read error is the
	// caller's to see.
	b, _ := io.ReadAll(r)
	return url.Extract(string(b)), src.err
}

// errRecorder remembers the first read error other than io.EOF.
type errRecorder struct {
	r   io.Reader
	err error
}

func (e *errRecorder) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// newlineStripper drops CR and LF, which base64.NewDecoder already skips,
// and white space at line ends, which it does not.
type newlineStripper struct{ r io.Reader }

func (s newlineStripper) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	j := 0
	for _, c := range p[:n] {
		if c != ' ' && c != '\t' {
			p[j] = c
			j++
		}
	}
	return j, err
}
