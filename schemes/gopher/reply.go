package gopher

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// plainReply reads the start of a (non-Gopher+) reply: an error item in
// its first line fails the fetch; otherwise the Body streams the item in
// the manner its type calls for.
func (h *Handler) plainReply(s *session, req *fetch.Request, g url.Gopher) (*fetch.Resource, error) {
	if err := h.checkErrorItem(s, req); err != nil {
		return nil, err
	}
	// Each line of a menu must come within the idle timeout; an item of
	// any other type is not made of lines.
	s.clock.lines(isMenuType(g.Type))
	res := newResource(req, g.Type)
	switch {
	case isMenuType(g.Type):
		t := h.newText(s.br, req.Trace, min(h.maxHold(), h.maxMenu()))
		res.Body = &body{s: s, r: &capReader{r: t, n: h.maxMenu()}}
	case isTextType(g.Type):
		res.Body = &body{s: s, r: h.newText(s.br, req.Trace, h.maxHold())}
	default:
		res.Body = &body{s: s, r: rawReader{s.br}}
	}
	return res, nil
}

// checkErrorItem looks at a reply that begins with "3": when the whole
// reply is a server's error form, RFC 1436's error items (well-formed
// menu lines of type 3 with a display string), optionally ended by a lone
// "." line, the fetch fails with Kind NotFound and the server's text. Any
// other reply is data, left unread: a file may well begin "3\t".
func (h *Handler) checkErrorItem(s *session, req *fetch.Request) error {
	b, err := s.br.Peek(1)
	if err != nil {
		if err == io.EOF {
			req.Trace.Notef("the server closed without a reply")
			return nil
		}
		return readErr(err)
	}
	if b[0] != '3' {
		return nil
	}
	reply, err := peekErrorForm(s.br, h.maxLine())
	if err != nil || reply == nil {
		return err
	}
	var texts []string
	for _, l := range reply {
		req.Trace.Recv(traceable(sanitize(string(l))))
		if len(l) > 0 && l[0] == '3' {
			it, _ := ParseItem(string(l))
			texts = append(texts, it.Display)
		}
	}
	re := &fetch.ReplyError{Text: truncate(strings.Join(texts, " "), 300)}
	return &fetch.Error{Kind: fetch.NotFound, Err: fmt.Errorf("the server answers with an error item: %w", re)}
}

// peekErrorForm returns the lines of the reply, without their line ends
// and without consuming them, when the reply is wholly a server's error
// form; nil when it is anything else. It reads ahead until the server
// closes, but no further than the buffer of br and no line longer than
// max: a reply that runs on is data.
func peekErrorForm(br *bufio.Reader, max int) ([][]byte, error) {
	var (
		lines [][]byte
		done  int  // bytes of br's buffer checked as whole lines
		ended bool // a "." line was seen
	)
	for seen := 0; ; {
		// Wait for at least one byte more than seen so far.
		b, err := br.Peek(seen + 1)
		if len(b) <= seen {
			if err == io.EOF || err == bufio.ErrBufferFull {
				break
			}
			return nil, readErr(err)
		}
		b, _ = br.Peek(br.Buffered())
		seen = len(b)
		for {
			i := bytes.IndexByte(b[done:], '\n')
			if i < 0 {
				break
			}
			line := bytes.TrimSuffix(b[done:done+i], []byte("\r"))
			if ended || !errorLine(line, max) && string(line) != "." {
				return nil, nil
			}
			if string(line) == "." {
				ended = true
			} else {
				lines = append(lines, line)
			}
			done += i + 1
		}
		if len(b)-done > max {
			return nil, nil
		}
	}
	b, _ := br.Peek(br.Buffered())
	if len(b) >= br.Size() {
		return nil, nil // a reply that runs on
	}
	if done < len(b) {
		// A last line without its line end.
		line := b[done:]
		if ended || !errorLine(line, max) {
			return nil, nil
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return lines, nil
}

// errorLine reports whether line (without its line end) is a well-formed
// error item: type 3, a display string, then selector, host and port as in
// any menu line.
func errorLine(line []byte, max int) bool {
	if len(line) < 2 || len(line) > max || line[0] != '3' || line[1] == '\t' {
		return false
	}
	// As a menu line of any other type it must parse strictly.
	_, ok := ParseItem("0" + string(line[1:]))
	return ok
}

// peekLine returns the first line of the reply, with its line end, without
// consuming it: at most max bytes, or what there is before the server
// closes (nothing when it closes at once).
func peekLine(br *bufio.Reader, max int) ([]byte, error) {
	for n := 1; ; {
		_, err := br.Peek(n)
		b, _ := br.Peek(min(br.Buffered(), max))
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return b[:i+1], nil
		}
		if len(b) >= max {
			return b, nil
		}
		if err != nil {
			if err == io.EOF {
				return b, nil
			}
			return nil, readErr(err)
		}
		n = len(b) + 1
	}
}

// isMenuType reports whether replies of type t are menus: 1 directories
// and 7 search results.
func isMenuType(t string) bool { return t == "1" || t == "7" }

// isTextType reports whether replies of type t are text that RFC 1436 ends
// with a lone "." line.
func isTextType(t string) bool { return t == "0" || isMenuType(t) }

// mediaTypes are the media types the item types imply.
var mediaTypes = map[string]string{
	"0": "text/plain",
	"1": "application/gopher-menu",
	"7": "application/gopher-menu",
	"4": "application/mac-binhex40",
	"6": "text/x-uuencode",
	"9": "application/octet-stream",
	"5": "application/octet-stream",
	"g": "image/gif",
	"h": "text/html",
	"p": "image/png",
	"d": "application/pdf",
}

// newResource returns the Resource for an item of type t, without a Body.
func newResource(req *fetch.Request, t string) *fetch.Resource {
	res := &fetch.Resource{URL: req.URL, Size: -1, MediaType: mediaTypes[t], Extra: map[string]string{ExtraType: t}}
	if isMenuType(t) {
		res.Kind = fetch.ResourceMenu
	}
	return res
}

// body is a Resource's Body: it reads r and closes the session.
type body struct {
	s *session
	r io.Reader
}

func (b *body) Read(p []byte) (int, error) { return b.r.Read(p) }

// WriteTo copies the body to w: an item read to its end or to its size
// goes straight from the socket to an io.ReaderFrom (see spliceTo), and
// any other through a buffer larger than io.Copy's, so that bulk items
// take fewer system calls.
func (b *body) WriteTo(w io.Writer) (int64, error) {
	if n, ok, err := b.spliceTo(w); ok {
		return n, err
	}
	buf := make([]byte, 256<<10)
	// Both sides are wrapped so that neither a ReaderFrom on w nor this
	// method itself takes over from the buffer.
	return io.CopyBuffer(struct{ io.Writer }{w}, struct{ io.Reader }{b.r}, buf)
}

// Close ends the connection (a gopher server closes after each item) and
// removes any held-back text; it is safe to call more than once.
func (b *body) Close() error {
	if c, ok := b.r.(io.Closer); ok {
		c.Close()
	}
	return b.s.Close()
}

// rawReader reads until the server closes, classifying errors.
type rawReader struct{ r io.Reader }

func (r rawReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		err = readErr(err)
	}
	return n, err
}

// capReader fails with Kind Protocol once r yields more than n bytes.
type capReader struct {
	r io.Reader
	n int64
}

func (c *capReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n -= int64(n)
	if c.n < 0 {
		return 0, fetch.Errorf(fetch.Protocol, "the menu is longer than the bound (see Handler.MaxMenu)")
	}
	return n, err
}

// Close closes r when it can be closed.
func (c *capReader) Close() error {
	if cl, ok := c.r.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// readErr classifies an error read from the server: a reset connection is
// an incomplete transfer (CONTRACT §2).
func readErr(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return fetch.Wrap(fetch.Incomplete, err)
	}
	return fetch.Classify(err)
}
