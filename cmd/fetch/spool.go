package main

import (
	"bytes"
	"io"
	"iter"
	"os"
	"sync"
)

// spoolMem is how much of one transfer a spool keeps in memory before it
// spills to a temporary file.
const spoolMem = 256 << 10

// spool holds one transfer's stdout bytes until their turn comes, so that
// parallel transfers reach stdout whole and in order: small outputs in
// memory, larger ones in an unlinked temporary file, so memory stays flat.
type spool struct {
	mu    sync.Mutex
	mem   bytes.Buffer
	f     *os.File
	err   error
	done  chan struct{}
	once  sync.Once
	index int    // the URL's position
	url   string // the redacted URL, for a write error
}

func newSpool() *spool { return &spool{done: make(chan struct{})} }

// Write appends to the spool, spilling to disk past spoolMem.
func (s *spool) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	if s.f == nil && s.mem.Len()+len(p) <= spoolMem {
		return s.mem.Write(p)
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "fetch-spool-*")
		if err != nil {
			s.err = err
			return 0, err
		}
		os.Remove(f.Name()) // unlinked: nothing is left behind
		s.f = f
		if _, err := s.f.Write(s.mem.Bytes()); err != nil {
			s.err = err
			return 0, err
		}
		s.mem = bytes.Buffer{}
	}
	return s.f.Write(p)
}

// finish marks the transfer complete; it may be called more than once.
func (s *spool) finish() { s.once.Do(func() { close(s.done) }) }

// copyTo waits for the transfer, copies its bytes to w and frees them. It
// returns the error of writing to w: output that could not be written is a
// failure.
func (s *spool) copyTo(w io.Writer) error {
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	var werr error
	if s.mem.Len() > 0 { // a failed or empty transfer writes nothing
		_, werr = w.Write(s.mem.Bytes())
	}
	s.mem = bytes.Buffer{}
	if s.f == nil {
		return werr
	}
	if werr == nil {
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			werr = err
		} else {
			_, werr = io.Copy(w, s.f)
		}
	}
	s.f.Close()
	s.f = nil
	return werr
}

// spooler hands out a spool per URL, in the order read, and copies them to
// stdout in that order. At most ahead spools wait: reading more URLs waits
// for stdout to catch up, so memory and temporary files stay bounded.
type spooler struct {
	w     io.Writer
	order chan *spool
	mu    sync.Mutex
	byIdx map[int]*spool
	done  chan struct{}
}

func newSpooler(ahead int, w io.Writer) *spooler {
	return &spooler{w: w, order: make(chan *spool, ahead), byIdx: make(map[int]*spool), done: make(chan struct{})}
}

// number wraps the URL sequence: each URL read gets its spool, in order.
func (s *spooler) number(urls iter.Seq[string]) iter.Seq[string] {
	return func(yield func(string) bool) {
		i := 0
		for u := range urls {
			sp := newSpool()
			sp.index = i
			s.mu.Lock()
			s.byIdx[i] = sp
			s.mu.Unlock()
			i++
			s.order <- sp
			if !yield(u) {
				return
			}
		}
	}
}

// get returns URL i's spool.
func (s *spooler) get(i int) *spool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byIdx[i]
}

// flush copies each spool to stdout in order as it completes, reporting
// a failure to write as URL i's failure.
func (s *spooler) flush(failed func(i int, url string, err error)) {
	defer close(s.done)
	for sp := range s.order {
		if err := sp.copyTo(s.w); err != nil {
			failed(sp.index, sp.url, err)
		}
		s.mu.Lock()
		delete(s.byIdx, sp.index)
		s.mu.Unlock()
	}
}

// close ends the run: spools never finished (a run cut short) are
// finished, and close waits until stdout has everything.
func (s *spooler) close() {
	close(s.order)
	s.mu.Lock()
	for _, sp := range s.byIdx {
		sp.finish()
	}
	s.mu.Unlock()
	<-s.done
}
