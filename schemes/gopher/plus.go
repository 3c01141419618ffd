package gopher

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Sizes in a Gopher+ reply header other than a byte count.
const (
	plusDotTerminated = -1 // "+-1": the data ends with a lone "." line
	plusUntilClose    = -2 // "+-2": the data ends when the server closes
)

// parsePlusHeader parses the first line of a Gopher+ reply, without its
// line end: "+" or "-" (an error), then -1, -2 or a byte count. It reports
// ok false for a line of any other shape.
func parsePlusHeader(line string) (size int64, isErr bool, ok bool) {
	if len(line) < 2 || (line[0] != '+' && line[0] != '-') {
		return 0, false, false
	}
	isErr = line[0] == '-'
	rest := strings.TrimRight(line[1:], " \t")
	switch rest {
	case "-1":
		return plusDotTerminated, isErr, true
	case "-2":
		return plusUntilClose, isErr, true
	}
	if rest == "" || len(rest) > 18 {
		return 0, false, false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return 0, false, false
		}
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	if err != nil {
		return 0, false, false
	}
	return n, isErr, true
}

// plusReply reads a Gopher+ reply: its header line, then the data it
// announces. A server that answers a "+" request (default or alternate
// view) without a header speaks plain gopher, and its reply is read as
// such; an attribute request ("!", "$") answered without one is a protocol
// error.
func (h *Handler) plusReply(s *session, req *fetch.Request, g url.Gopher) (*fetch.Resource, error) {
	line, err := peekLine(s.br, h.maxLine())
	if err != nil {
		return nil, err
	}
	if len(line) == 0 {
		return nil, fetch.Errorf(fetch.Protocol, "the server closed without a Gopher+ reply")
	}
	hdr := strings.TrimRight(string(line), "\r\n")
	size, isErr, ok := parsePlusHeader(hdr)
	if !ok {
		if line[0] == '3' || strings.HasPrefix(g.Plus, "+") {
			req.Trace.Notef("no Gopher+ header: reading a plain gopher reply")
			return h.plainReply(s, req, g)
		}
		if line[len(line)-1] != '\n' && len(line) >= h.maxLine() {
			return nil, fetch.Errorf(fetch.Protocol, "the Gopher+ reply header is longer than %d bytes", h.maxLine())
		}
		return nil, fetch.Errorf(fetch.Protocol, "the server does not speak Gopher+: it answered %q", sanitize(truncate(hdr, 80)))
	}
	req.Trace.Recv(sanitize(hdr))
	s.br.Discard(len(line))
	if isErr {
		return nil, h.plusError(s, size)
	}
	res := newResource(req, g.Type)
	res.Extra[ExtraPlus] = g.Plus
	switch {
	case strings.HasPrefix(g.Plus, "!"), strings.HasPrefix(g.Plus, "$"):
		res.Kind, res.MediaType = fetch.ResourceFile, "text/plain"
	case len(g.Plus) > 1 && g.Plus[0] == '+':
		view, _, _ := strings.Cut(g.Plus[1:], " ")
		res.MediaType = view
	}
	var r io.Reader
	switch size {
	case plusDotTerminated:
		r = &unstuffer{r: s.br, strict: true, lineStart: true}
	case plusUntilClose:
		r = rawReader{s.br}
	default:
		res.Size = size
		r = &sizedReader{r: s.br, n: size, size: size}
	}
	if res.Kind == fetch.ResourceMenu {
		r = &capReader{r: r, n: h.maxMenu()}
	}
	s.clock.lines(res.Kind == fetch.ResourceMenu)
	res.Body = &body{s: s, r: r}
	return res, nil
}

// plusError reads the text of a Gopher+ error reply (at most 4 KiB) and
// returns the error it names: code 1 (item not available) and 3 (item
// moved) are Kind NotFound, 2 (try again later) and others Kind Other.
func (h *Handler) plusError(s *session, size int64) error {
	var r io.Reader
	switch size {
	case plusDotTerminated:
		r = &unstuffer{r: s.br, strict: true, lineStart: true}
	case plusUntilClose:
		r = s.br
	default:
		r = io.LimitReader(s.br, size)
	}
	b, _ := io.ReadAll(io.LimitReader(r, 4<<10))
	msg := strings.TrimSpace(strings.ReplaceAll(string(b), "\r\n", "\n"))
	first, rest, _ := strings.Cut(msg, "\n")
	code, contact, _ := strings.Cut(first, " ")
	text := strings.Join(strings.Fields(rest), " ")
	if text == "" {
		text = contact
	}
	text = truncate(text, 300)
	reply := func(kind fetch.Kind, n int, what string) error {
		return &fetch.Error{Kind: kind, Err: fmt.Errorf("the Gopher+ server answers error %w (%s)", &fetch.ReplyError{Code: n, Text: text}, what)}
	}
	switch code {
	case "1":
		return reply(fetch.NotFound, 1, "item not available")
	case "3":
		return reply(fetch.NotFound, 3, "item moved")
	case "2":
		return reply(fetch.Unavailable, 2, "try again later")
	}
	return &fetch.Error{Kind: fetch.Other, Err: fmt.Errorf("the Gopher+ server answers an error: %w", &fetch.ReplyError{Text: truncate(strings.Join(strings.Fields(msg), " "), 300)})}
}

// sizedReader reads exactly n bytes announced by a "+N" header; the server
// closing before them is an incomplete transfer.
type sizedReader struct {
	r    io.Reader
	n    int64
	size int64
}

func (s *sizedReader) Read(p []byte) (int, error) {
	if s.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > s.n {
		p = p[:s.n]
	}
	n, err := s.r.Read(p)
	s.n -= int64(n)
	if err == io.EOF {
		if s.n > 0 {
			return n, fetch.Errorf(fetch.Incomplete, "the server closed after %d of %d bytes", s.size-s.n, s.size)
		}
		err = nil
	}
	if err != nil {
		return n, readErr(err)
	}
	return n, nil
}

// truncate shortens s to at most n bytes.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// readAll reads r to its end, failing past max bytes.
func readAll(r io.Reader, max int64) ([]byte, error) {
	var b bytes.Buffer
	n, err := b.ReadFrom(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, fetch.Errorf(fetch.Protocol, "the reply is longer than %d bytes", max)
	}
	return b.Bytes(), nil
}
