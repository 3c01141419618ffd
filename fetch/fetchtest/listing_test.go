package fetchtest

import (
	"errors"
	"io"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

type closeCount int

func (c *closeCount) Close() error { *c++; return nil }

func TestEntries(t *testing.T) {
	cut := fetch.Errorf(fetch.Incomplete, "cut")
	for _, tc := range []struct {
		name  string
		items []error // nil: an entry; else the producer's error
		want  int
		err   error
		skip  int
	}{
		{"all", []error{nil, nil, io.EOF}, 2, nil, 0},
		{"skips", []error{nil, fetch.ErrUnparsed, nil, io.EOF}, 2, nil, 1},
		{"cut", []error{nil, cut}, 1, fetch.Incomplete, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := 0
			next := func() (fetch.Entry, error) {
				err := tc.items[i]
				i++
				return fetch.Entry{Name: "e"}, err
			}
			var closed closeCount
			l := fetch.NewListing(next, &closed)
			es, err := Entries(l)
			if len(es) != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Errorf("Entries: %d entries, %v; want %d, %v", len(es), err, tc.want, tc.err)
			}
			if l.Skipped() != tc.skip {
				t.Errorf("Skipped %d, want %d", l.Skipped(), tc.skip)
			}
			if closed != 1 {
				t.Errorf("closed %d times, want 1", closed)
			}
		})
	}
}
