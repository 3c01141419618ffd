package nntp

import (
	"io"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// Close reads what is left of a reply up to its final "." so that the
// connection can serve the next request, but at most drainLimit bytes and
// for at most drainTime; beyond either the connection is dropped instead.
const (
	drainLimit = 64 << 10
	drainTime  = time.Second
)

// dotBody streams a multi-line reply (an article, overview lines, a group
// list): dot-unstuffed, lines ending "\n", the final "." line removed. It
// reads straight from the connection, so memory stays flat whatever the
// size. A stream that ends before the "." line is Kind Incomplete.
type dotBody struct {
	h    *Handler
	s    *session
	r    io.Reader // a dotReader on the session's buffer
	what string    // "article", "overview", "group list": for errors

	mu      sync.Mutex
	done    bool  // the "." line was read
	err     error // the first read failure, returned again
	reading bool  // a Read is waiting on the connection
	closed  bool
	once    sync.Once
}

func newDotBody(h *Handler, s *session, what string) *dotBody {
	return &dotBody{h: h, s: s, r: newDotReader(s.r.R), what: what}
}

// errClosed is the error of a Read after Close.
var errClosed = fetch.Errorf(fetch.Other, "read of a closed body")

// Read reads the reply's bytes; io.EOF only after the final "." line.
func (b *dotBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	switch {
	case b.closed:
		b.mu.Unlock()
		return 0, errClosed
	case b.done:
		b.mu.Unlock()
		return 0, io.EOF
	case b.err != nil:
		b.mu.Unlock()
		return 0, b.err
	}
	b.reading = true
	b.mu.Unlock()

	n, err := b.r.Read(p)

	b.mu.Lock()
	defer b.mu.Unlock()
	b.reading = false
	switch {
	case b.closed:
		// Close aborted this Read and let the session go.
		return n, errClosed
	case err == io.EOF:
		b.done = true
	case err != nil:
		b.s.broken = true
		b.err = transferErr(err, "the "+b.what+" ended before its final \".\" line")
		err = b.err
	}
	return n, err
}

// Close ends the body. A Read waiting in another goroutine is aborted and
// the connection dropped. Otherwise what is left of the reply is read, up
// to drainLimit bytes and drainTime, so that the connection can return to
// the pool; a longer or stalled reply drops the connection instead. It is
// safe to call more than once.
func (b *dotBody) Close() error {
	b.once.Do(func() {
		b.mu.Lock()
		b.closed = true
		busy, clean := b.reading, b.done && b.err == nil
		if busy {
			b.s.broken = true
		}
		b.mu.Unlock()
		if busy {
			b.s.raw.Conn.SetDeadline(wire.Past())
			b.h.release(b.s, false)
			return
		}
		if !clean && b.err == nil {
			clean = b.drain()
		}
		b.h.release(b.s, clean)
	})
	return nil
}

// drain reads the rest of the reply within the bounds and reports whether
// its final "." line came.
func (b *dotBody) drain() bool {
	stop := b.s.abortAfter(drainTime)
	defer stop()
	_, err := io.CopyN(io.Discard, b.r, drainLimit)
	if err != io.EOF {
		b.s.broken = true
		return false
	}
	return true
}

// abortAfter makes the session's reads fail from d on, until stop is
// called: the connection's deadline is put in the past then, and again
// every 50 ms, for each read sets its own deadline as it starts.
func (s *session) abortAfter(d time.Duration) (stop func()) {
	var mu sync.Mutex
	stopped := false
	var t *time.Timer
	var abort func()
	abort = func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		s.raw.Conn.SetReadDeadline(wire.Past())
		t = time.AfterFunc(50*time.Millisecond, abort)
	}
	t = time.AfterFunc(d, abort)
	return func() {
		mu.Lock()
		stopped = true
		t.Stop()
		mu.Unlock()
	}
}
