package main

import (
	"io"
	"os"
	"sync"
	"time"
)

// openTrace returns where the protocol trace goes, nil for none: stderr
// with -v, or --trace's FILE, each line stamped with the time with
// --trace-time. close closes a file it opened.
func openTrace(c *config, stdout, stderr io.Writer) (w io.Writer, close func() error, err error) {
	close = func() error { return nil }
	switch {
	case c.traceFile == "-":
		w = stdout
	case c.traceFile != "":
		f, err := os.Create(c.traceFile)
		if err != nil {
			return nil, close, err
		}
		w, close = f, f.Close
	case c.verbose:
		w = stderr
	default:
		return nil, close, nil
	}
	if c.traceTime {
		w = &stampWriter{w: w, now: time.Now}
	}
	return w, close, nil
}

// stampWriter begins each line written through it with the time of day.
// A fetch.Trace writes each of its lines in one Write.
type stampWriter struct {
	mu    sync.Mutex
	w     io.Writer
	now   func() time.Time
	inMid bool // the last write ended within a line
}

func (s *stampWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	orig := len(p)
	var b []byte
	for len(p) > 0 {
		if !s.inMid {
			b = s.now().AppendFormat(b, "15:04:05.000000 ")
		}
		i := 0
		for i < len(p) && p[i] != '\n' {
			i++
		}
		if i < len(p) {
			i++ // the line end
			s.inMid = false
		} else {
			s.inMid = true
		}
		b = append(b, p[:i]...)
		p = p[i:]
	}
	if _, err := s.w.Write(b); err != nil {
		return 0, err
	}
	return orig, nil
}
