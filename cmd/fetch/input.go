package main

import (
	"iter"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/fetch"
)

// urlSource streams the URLs of a run: those of the command line (their
// globs expanded), then those of each -K file, read a line at a time as
// the transfers go, so a million-line list costs no more memory than a
// short one. Files are opened up front (loadConfig), so a missing one is a
// usage error before anything is fetched.
type urlSource struct {
	args  []string
	globs []*urlGlob // the arguments' globs; nil with -g
	files []*kReader
	err   error // the first read error, reported at the end

	// keepValues keeps each URL's glob values, for -o's #N, until
	// forget drops them; outputs holds the file a -K file's "output"
	// line names for a URL.
	keepValues bool
	mu         sync.Mutex
	values     map[int][]string
	outputs    map[int]string
}

// openSource opens the URLs of a run. Unless globOff, each argument's
// globs are parsed now (a malformed one is an error of Kind Malformed),
// and expanded as the URLs are read.
func openSource(args []string, files []*kReader, globOff bool) (*urlSource, error) {
	s := &urlSource{args: args, files: files, values: map[int][]string{}, outputs: map[int]string{}}
	if !globOff {
		for _, a := range args {
			g, err := parseGlob(a)
			if err != nil {
				return nil, &fetch.Error{Op: "glob", URL: redactInput(a), Kind: fetch.Malformed, Err: err}
			}
			s.globs = append(s.globs, g)
		}
	}
	return s, nil
}

// all yields every URL in order.
func (s *urlSource) all() iter.Seq[string] {
	return func(yield func(string) bool) {
		n := 0
		for i, u := range s.args {
			if s.globs == nil || s.globs[i].globs == 0 {
				if !yield(u) {
					return
				}
				n++
				continue
			}
			for u, vals := range s.globs[i].expand() {
				if s.keepValues {
					s.mu.Lock()
					s.values[n] = vals
					s.mu.Unlock()
				}
				if !yield(u) {
					return
				}
				n++
			}
		}
		for _, k := range s.files {
			stopped := false
			err := k.urls(func(u, output string) bool {
				if output != "" && output != "-" {
					s.mu.Lock()
					s.outputs[n] = output
					s.mu.Unlock()
				}
				n++
				if !yield(u) {
					stopped = true
					return false
				}
				return true
			})
			if err != nil && s.err == nil {
				s.err = err
			}
			if stopped || err != nil {
				return
			}
		}
	}
}

// outputFor returns the file a -K file names for URL i, "" for none.
func (s *urlSource) outputFor(i int) string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outputs[i]
}

// globValues returns the glob values of URL i (nil when it has none), and
// forgets them once its last use is past (see forget).
func (s *urlSource) globValues(i int) []string {
	if s == nil || !s.keepValues {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.values[i]
}

// forget drops what is kept of URL i: its transfer is over.
func (s *urlSource) forget(i int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	delete(s.values, i)
	delete(s.outputs, i)
	s.mu.Unlock()
}

// redactInput hides what could be a password in a URL that may not parse:
// from the first ':' after the scheme's slashes to the last '@'.
func redactInput(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	at := strings.LastIndexByte(rest, '@')
	colon := strings.IndexByte(rest, ':')
	if at < 0 || colon < 0 || colon > at {
		return raw
	}
	return scheme + "://" + rest[:colon] + ":****" + rest[at:]
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
