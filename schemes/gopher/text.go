package gopher

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/rfc1738/fetch/fetch"
)

// text reads a text or menu item whose end the server may mark RFC 1436's
// way (a lone "." line, with lines that begin with "." stuffed with a
// second one) or not at all (the server closes). Both readings give the same
// bytes up to the first line that begins with "."; text streams those at
// once and holds back the rest, in memory and then in a temporary file,
// until the server closes. Then it decides: a held-back part whose last
// line is "." was dot-terminated, and is delivered without that line and
// unstuffed; any other is delivered as sent.
type text struct {
	r         io.Reader
	h         *Handler
	trace     *fetch.Trace
	maxHold   int64
	lineStart bool
	eof       bool
	hold      *spool
	out       io.Reader
	err       error
	scratch   []byte
}

// newText returns the reader of a text reply from r; at most maxHold bytes
// are held back.
func (h *Handler) newText(r io.Reader, tr *fetch.Trace, maxHold int64) *text {
	return &text{r: r, h: h, trace: tr, maxHold: maxHold, lineStart: true}
}

func (t *text) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		switch {
		case t.out != nil:
			return t.out.Read(p)
		case t.err != nil:
			return 0, t.err
		case t.hold != nil:
			t.drain(p)
			continue
		}
		n, err := t.r.Read(p)
		if n > 0 {
			if i := dotLine(p[:n], t.lineStart); i >= 0 {
				t.hold = t.h.newSpool(t.maxHold)
				if werr := t.hold.write(p[i:n]); werr != nil {
					t.err = werr
				}
				n = i
			} else {
				t.lineStart = p[n-1] == '\n'
			}
		}
		switch {
		case err == io.EOF && t.hold != nil:
			t.eof = true
		case err == io.EOF:
			t.trace.Notef("the server closed the connection: text delivered as sent")
			t.err = io.EOF
		case err != nil:
			t.err = readErr(err)
		}
		if n > 0 {
			return n, nil
		}
	}
}

// dotLine returns the offset of the first "." that begins a line in b, or
// -1; lineStart tells whether b itself begins a line.
func dotLine(b []byte, lineStart bool) int {
	if lineStart && len(b) > 0 && b[0] == '.' {
		return 0
	}
	if i := bytes.Index(b, []byte("\n.")); i >= 0 {
		return i + 1
	}
	return -1
}

// drain reads the rest of the reply into the hold and decides how to
// deliver it.
func (t *text) drain(p []byte) {
	if len(p) < 16<<10 {
		if t.scratch == nil {
			t.scratch = make([]byte, 32<<10)
		}
		p = t.scratch
	}
	for !t.eof {
		n, err := t.r.Read(p)
		if n > 0 {
			if werr := t.hold.write(p[:n]); werr != nil {
				t.err = werr
				return
			}
		}
		if err == io.EOF {
			t.eof = true
		} else if err != nil {
			t.err = readErr(err)
			return
		}
	}
	r, err := t.hold.reader()
	if err != nil {
		t.err = err
		return
	}
	if last := t.hold.lastDotLine(); last > 0 {
		t.trace.Notef(`the text ends with a lone "." line (RFC 1436): line removed, dot-stuffing undone`)
		t.out = &unstuffer{r: bufio.NewReader(io.LimitReader(r, t.hold.n-int64(last))), lineStart: true}
		return
	}
	t.trace.Notef(`the server closed the connection without a lone "." line: text delivered as sent`)
	t.out = r
}

// Close removes the held-back text.
func (t *text) Close() error {
	if t.hold != nil {
		t.hold.close()
	}
	return nil
}

// spool holds bytes in memory up to a bound, then in a temporary file
// (removed from its folder at once, so nothing is left behind).
type spool struct {
	mem    []byte
	memMax int
	f      *os.File
	dir    string
	n      int64
	max    int64
	tail   [4]byte
}

func (h *Handler) newSpool(max int64) *spool {
	return &spool{memMax: h.holdMemory(), max: max, dir: h.TempDir}
}

func (s *spool) write(b []byte) error {
	s.n += int64(len(b))
	if s.n > s.max {
		return fetch.Errorf(fetch.Protocol, "more than %d bytes of text held back while waiting for its end (see Handler.MaxHold and MaxMenu)", s.max)
	}
	if len(b) >= len(s.tail) {
		copy(s.tail[:], b[len(b)-len(s.tail):])
	} else {
		copy(s.tail[:], s.tail[len(b):])
		copy(s.tail[len(s.tail)-len(b):], b)
	}
	if s.f == nil && len(s.mem)+len(b) <= s.memMax {
		s.mem = append(s.mem, b...)
		return nil
	}
	if s.f == nil {
		f, err := os.CreateTemp(s.dir, "fetch-gopher-*")
		if err != nil {
			return fetch.Wrap(fetch.Other, err)
		}
		os.Remove(f.Name())
		s.f = f
		if _, err := f.Write(s.mem); err != nil {
			return fetch.Wrap(fetch.Other, err)
		}
		s.mem = nil
	}
	if _, err := s.f.Write(b); err != nil {
		return fetch.Wrap(fetch.Other, err)
	}
	return nil
}

// lastDotLine returns the length of the held bytes' last line when that
// line is a lone "." (".\r\n" or ".\n"), else 0. The held bytes begin a
// line.
func (s *spool) lastDotLine() int {
	t := s.tail[:]
	switch {
	case s.n >= 3 && string(t[1:]) == ".\r\n" && (s.n == 3 || t[0] == '\n'):
		return 3
	case s.n >= 2 && string(t[2:]) == ".\n" && (s.n == 2 || t[1] == '\n'):
		return 2
	}
	return 0
}

// reader returns the held bytes from the start.
func (s *spool) reader() (io.Reader, error) {
	if s.f == nil {
		return bytes.NewReader(s.mem), nil
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fetch.Wrap(fetch.Other, err)
	}
	return bufio.NewReaderSize(s.f, 64<<10), nil
}

func (s *spool) close() {
	s.mem = nil
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// unstuffer removes the leading "." of every line it reads (RFC 1436's
// dot-stuffing). In strict mode a lone "." line ends the text, and the end
// of the stream before it is an incomplete transfer.
type unstuffer struct {
	r         *bufio.Reader
	strict    bool
	lineStart bool
	done      bool
}

func (u *unstuffer) Read(p []byte) (int, error) {
	if u.done {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) {
		if n > 0 && u.r.Buffered() == 0 {
			break
		}
		if u.lineStart {
			b, err := u.r.Peek(1)
			if len(b) == 0 {
				if n > 0 {
					break
				}
				return 0, u.end(err)
			}
			if b[0] == '.' {
				if u.strict {
					b, _ := u.r.Peek(3)
					if bytes.HasPrefix(b, []byte(".\r\n")) || bytes.HasPrefix(b, []byte(".\n")) {
						u.done = true
						if n > 0 {
							return n, nil
						}
						return 0, io.EOF
					}
				}
				u.r.Discard(1)
			}
			u.lineStart = false
		}
		if u.r.Buffered() == 0 {
			if _, err := u.r.Peek(1); err != nil {
				if n > 0 {
					break
				}
				return 0, u.end(err)
			}
		}
		b, _ := u.r.Peek(min(u.r.Buffered(), len(p)-n))
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[:i+1]
			u.lineStart = true
		}
		c := copy(p[n:], b)
		u.r.Discard(c)
		n += c
	}
	return n, nil
}

func (u *unstuffer) end(err error) error {
	if err == io.EOF {
		if u.strict {
			return fetch.Errorf(fetch.Incomplete, `the server closed before the final "." line`)
		}
		return io.EOF
	}
	return readErr(err)
}
