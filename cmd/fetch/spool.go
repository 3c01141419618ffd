package main

import (
	"io"
	"os"
	"sync"
)

// spool holds one transfer's stdout bytes in a temporary file until their
// turn comes, so that parallel transfers reach stdout whole and in order.
type spool struct {
	mu   sync.Mutex
	f    *os.File
	err  error
	done chan struct{}
}

func newSpool() *spool { return &spool{done: make(chan struct{})} }

// Write appends to the spool file, creating it on first use.
func (s *spool) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "fetch-spool-*")
		if err != nil {
			s.err = err
			return 0, err
		}
		os.Remove(f.Name()) // unlinked: nothing is left behind
		s.f = f
	}
	return s.f.Write(p)
}

// finish marks the transfer complete.
func (s *spool) finish() { close(s.done) }

// copyTo waits for the transfer, copies its bytes to w and frees the file.
func (s *spool) copyTo(w io.Writer) {
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return
	}
	if _, err := s.f.Seek(0, io.SeekStart); err == nil {
		io.Copy(w, s.f)
	}
	s.f.Close()
	s.f = nil
}
