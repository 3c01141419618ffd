package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// lines is a Listing producer over "name size" lines; a line without a
// size is unparsed.
func lines(text string) func() (Entry, error) {
	ls := strings.Split(text, "\n")
	return func() (Entry, error) {
		if len(ls) == 0 {
			return Entry{}, io.EOF
		}
		l := ls[0]
		ls = ls[1:]
		var e Entry
		if _, err := fmt.Sscanf(l, "%s %d", &e.Name, &e.Size); err != nil {
			return Entry{}, fmt.Errorf("line %q: %w", l, ErrUnparsed)
		}
		return e, nil
	}
}

type closeCounter int

func (c *closeCounter) Close() error { *c++; return nil }

func TestListing(t *testing.T) {
	var closed closeCounter
	l := NewListing(lines("a 1\ngarbage\nb 2\n\nc 3"), &closed)
	var names []string
	for {
		e, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name)
	}
	if got := strings.Join(names, ","); got != "a,b,c" || l.Skipped() != 2 {
		t.Errorf("entries %q, skipped %d; want a,b,c and 2", got, l.Skipped())
	}
	if _, err := l.Next(); err != io.EOF {
		t.Errorf("Next after the end = %v, want io.EOF", err)
	}
	l.Close()
	l.Close()
	if closed != 1 {
		t.Errorf("closer closed %d times, want 1", closed)
	}

	broken := NewListing(func() (Entry, error) { return Entry{}, Errorf(Incomplete, "cut") }, nil)
	if _, err := broken.Next(); !errors.Is(err, Incomplete) {
		t.Errorf("Next = %v, want the producer's error", err)
	}
	if _, err := broken.Next(); !errors.Is(err, Incomplete) {
		t.Errorf("second Next = %v, want the same error again", err)
	}
	if err := broken.Close(); err != nil {
		t.Errorf("Close without a closer = %v", err)
	}
}

type lister struct {
	HandlerFunc
	text string
}

func (l lister) List(ctx context.Context, req *Request) (*Listing, error) {
	return NewListing(lines(l.text), nil), nil
}

// Client.List applies the policy, takes a per-host slot until Close, and
// names the URL in errors.
func TestClientList(t *testing.T) {
	c := &Client{PerHost: 1}
	c.Register("ftp", lister{staticHandler(""), "a 1\nb 2"})
	c.Register("http", staticHandler(""))
	l, err := c.List(context.Background(), &Request{URL: mustParse(t, "ftp://h/dir/")})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := l.Next(); err != nil || e.Name != "a" {
		t.Errorf("Next = %+v, %v", e, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.List(ctx, &Request{URL: mustParse(t, "ftp://h/other/")}); !errors.Is(err, Canceled) {
		t.Errorf("second listing while the first holds the only slot: %v, want Canceled", err)
	}
	l.Close()
	l2, err := c.List(context.Background(), &Request{URL: mustParse(t, "ftp://h/other/")})
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	l2.Close()
	if _, err := c.List(context.Background(), &Request{URL: mustParse(t, "http://h/")}); !errors.Is(err, Unsupported) || !strings.Contains(err.Error(), "http://h/") {
		t.Errorf("List without a Lister = %v, want Unsupported naming the URL", err)
	}
	if _, err := c.List(context.Background(), &Request{URL: mustParse(t, "ftp://h:25/")}); !errors.Is(err, Refused) {
		t.Errorf("List of a refused URL = %v, want Refused", err)
	}
}
