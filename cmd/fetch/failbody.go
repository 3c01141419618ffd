package main

import (
	"io"
	"sync"

	"github.com/rfc1738/fetch/fetch"
)

// errorBodies holds, with --fail-with-body, the error page of each URL's
// last attempt (fetch.Request.ErrorBody), in a spool: memory, then an
// unlinked temporary file. The final failure's page is written where the
// resource would have gone; the pages of attempts retried are dropped.
type errorBodies struct {
	mu    sync.Mutex
	pages map[int]*spool
}

// track gives the attempt at URL i a page of its own.
func (b *errorBodies) track(i int, req *fetch.Request) {
	if b == nil {
		return
	}
	s := newSpool()
	req.ErrorBody = s
	b.mu.Lock()
	old := b.pages[i]
	b.pages[i] = s
	b.mu.Unlock()
	drop(old)
}

// take returns URL i's page, forgetting it; nil when none.
func (b *errorBodies) take(i int) *spool {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.pages[i]
	delete(b.pages, i)
	return s
}

// drop frees a page unwritten.
func drop(s *spool) {
	if s != nil {
		s.finish()
		s.copyTo(io.Discard)
	}
}

// writeErrorBody writes URL r's error page, after its final failure, to
// stdout or to its file (made whole, as the page is). Nothing is written
// when the failure brought no page.
func (e *runEnv) writeErrorBody(stdout io.Writer, r *fetch.Result) {
	s := e.errPages.take(r.Index)
	if s == nil {
		return
	}
	if r.Err == nil || r.URL == nil {
		drop(s)
		return
	}
	s.finish()
	dest, err := e.dest(r.Index, r.URL)
	if err != nil || dest == nil {
		s.copyTo(stdout)
		return
	}
	if s.mem.Len() == 0 && s.f == nil {
		return // no page: no file
	}
	dest.resume = false
	if _, err := dest.open(); err != nil {
		drop(s)
		return
	}
	if err := s.copyTo(dest); err != nil {
		dest.abort()
		return
	}
	if err := dest.commit(); err != nil {
		dest.abort()
	}
}
