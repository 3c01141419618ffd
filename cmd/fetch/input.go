package main

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
)

// urlSource streams the URLs of a run: those of the command line, then
// those of each -K file, read a line at a time as the transfers go, so a
// million-line list costs no more memory than a short one. Files are opened
// up front, so a missing one is a usage error before anything is fetched.
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

// peek returns the first n URLs of seq and a sequence that yields them and
// then the rest, so the run can know whether there are none, one or more
// without reading the whole list.
func peek(seq iter.Seq[string], n int) ([]string, iter.Seq[string], func()) {
	next, stop := iter.Pull(seq)
	var first []string
	for len(first) < n {
		u, ok := next()
		if !ok {
			break
		}
		first = append(first, u)
	}
	rest := func(yield func(string) bool) {
		for _, u := range first {
			if !yield(u) {
				return
			}
		}
		for {
			u, ok := next()
			if !ok || !yield(u) {
				return
			}
		}
	}
	return first, rest, stop
}
