package main

import (
	"bytes"
	"io"
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
	mu   sync.Mutex
	mem  bytes.Buffer
	f    *os.File
	err  error
	done chan struct{}
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

// finish marks the transfer complete.
func (s *spool) finish() { close(s.done) }

// copyTo waits for the transfer, copies its bytes to w and frees them.
func (s *spool) copyTo(w io.Writer) {
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Write(s.mem.Bytes())
	s.mem = bytes.Buffer{}
	if s.f == nil {
		return
	}
	if _, err := s.f.Seek(0, io.SeekStart); err == nil {
		io.Copy(w, s.f)
	}
	s.f.Close()
	s.f = nil
}
