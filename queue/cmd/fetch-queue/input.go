package main

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
)

// urlSource streams the URLs to enqueue: those of the command line, then
// those of each -K file a line at a time, as fetch reads them.
type urlSource struct {
	args  []string
	files []io.Reader
	names []string
	close []io.Closer
	err   error // the first read error, reported at the end
}

func openSource(args, inputFiles []string, stdin io.Reader) (*urlSource, error) {
	s := &urlSource{args: args}
	for _, name := range inputFiles {
		if name == "-" {
			s.files = append(s.files, stdin)
			s.names = append(s.names, name)
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("-K: %w", err)
		}
		s.files = append(s.files, f)
		s.names = append(s.names, name)
		s.close = append(s.close, f)
	}
	return s, nil
}

// all yields every URL in order. Blank lines and lines starting with '#'
// in a -K file are skipped.
func (s *urlSource) all() iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, u := range s.args {
			if !yield(u) {
				return
			}
		}
		for i, r := range s.files {
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				line := strings.TrimSpace(sc.Text())
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				if !yield(line) {
					return
				}
			}
			if err := sc.Err(); err != nil && s.err == nil {
				s.err = fmt.Errorf("-K %s: %w", s.names[i], err)
				return
			}
		}
	}
}

// Close closes the -K files.
func (s *urlSource) Close() error {
	for _, c := range s.close {
		c.Close()
	}
	return nil
}
