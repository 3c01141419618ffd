package nntp

import (
	"io"
	"sync"

	"github.com/rfc1738/fetch/fetch"
)

// drainLimit is how much of an unread multi-line reply Close reads to reach
// the final "." and keep the connection; beyond it the connection is
// closed instead.
const drainLimit = 1 << 20

// dotBody streams a multi-line reply (an article, overview lines, a group
// list): dot-unstuffed, lines ending "\n", the final "." line removed. It
// reads straight from the connection, so memory stays flat whatever the
// size. A stream that ends before the "." line is Kind Incomplete.
type dotBody struct {
	h    *Handler
	s    *session
	r    io.Reader // a dotReader on the session's buffer
	what string    // "article", "overview", "group list": for errors

	done bool  // the "." line was read
	err  error // the first read failure, returned again
	once sync.Once
}

func newDotBody(h *Handler, s *session, what string) *dotBody {
	return &dotBody{h: h, s: s, r: newDotReader(s.r.R), what: what}
}

// Read reads the reply's bytes; io.EOF only after the final "." line.
func (b *dotBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	switch {
	case err == io.EOF:
		b.done = true
	case err != nil:
		b.s.broken = true
		b.err = transferErr(err, "the "+b.what+" ended before its final \".\" line")
		err = b.err
	}
	return n, err
}

// Close reads what is left of a short reply up to the final "." so that
// the connection can serve the next request, then returns the connection
// to the pool or closes it. It is safe to call more than once.
func (b *dotBody) Close() error {
	b.once.Do(func() {
		if !b.done && b.err == nil {
			io.CopyN(io.Discard, b, drainLimit) // sets done at the "." line
		}
		b.h.release(b.s, b.done && b.err == nil)
		b.err = fetch.Errorf(fetch.Other, "read of a closed body")
	})
	return nil
}
