// Package frontiertest checks implementations of crawl.Frontier, as
// testing/fstest checks file systems: every implementation's tests run
// Test.
package frontiertest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/rfc1738/fetch/fetch/crawl"
	"github.com/rfc1738/fetch/url"
)

// link returns a link to u, keyed by its normal form.
func link(t *testing.T, u string, depth int) crawl.Link {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return crawl.Link{URL: p, Key: p.Normalize().String(), Depth: depth, Tag: "a", Rel: "next"}
}

// drain takes every waiting link, marking each done, and returns their
// URLs in the order taken.
func drain(t *testing.T, f crawl.Frontier) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for {
		l, ok, err := f.Next(ctx)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if !ok {
			return out
		}
		out = append(out, l.URL.String())
		if err := f.Done(ctx, l.Key); err != nil {
			t.Fatalf("Done(%q): %v", l.Key, err)
		}
	}
}

// Test checks a Frontier that open returns empty: each key added once,
// a link returned as added (URL, key, depth, tag, rel), hosts taken in
// turn, every link once. When reopen is not nil, the frontier is
// persistent: Test closes it with links waiting and one taken and not
// done, and checks that reopen's frontier returns all of them, and no key
// twice.
func Test(t *testing.T, open func(t *testing.T) crawl.Frontier, reopen func(t *testing.T) crawl.Frontier) {
	ctx := context.Background()
	t.Run("dedupe", func(t *testing.T) {
		f := open(t)
		defer f.Close()
		n, err := f.Add(ctx, link(t, "http://a.example/1", 1), link(t, "http://a.example/1", 2), link(t, "http://a.example/2", 1))
		if err != nil || n != 2 {
			t.Fatalf("Add = %d, %v; want 2 new", n, err)
		}
		if n, err := f.Add(ctx, link(t, "http://a.example/2", 1)); err != nil || n != 0 {
			t.Fatalf("Add of a key added before = %d, %v; want 0", n, err)
		}
		l, ok, err := f.Next(ctx)
		if err != nil || !ok {
			t.Fatalf("Next = %v, %v", ok, err)
		}
		if l.URL.String() != "http://a.example/1" || l.Key != "http://a.example/1" || l.Depth != 1 || l.Tag != "a" || l.Rel != "next" {
			t.Errorf("Next = %+v, want the first link as added", l)
		}
		f.Done(ctx, l.Key)
		if got := drain(t, f); !slices.Equal(got, []string{"http://a.example/2"}) {
			t.Errorf("then %q", got)
		}
		if n, _ := f.Add(ctx, link(t, "http://a.example/1", 1)); n != 0 {
			t.Error("a key done was added again")
		}
	})
	t.Run("hosts in turn", func(t *testing.T) {
		f := open(t)
		defer f.Close()
		var ls []crawl.Link
		for i := range 3 {
			ls = append(ls, link(t, fmt.Sprintf("http://big.example/%d", i), 1))
		}
		ls = append(ls, link(t, "gopher://small.example/0/x", 1), link(t, "ftp://other.example/f", 1))
		if _, err := f.Add(ctx, ls...); err != nil {
			t.Fatal(err)
		}
		got := drain(t, f)
		if len(got) != 5 {
			t.Fatalf("took %q", got)
		}
		if i := slices.Index(got, "ftp://other.example/f"); i > 2 {
			t.Errorf("took %q: the third host waited behind the first's queue", got)
		}
		if !slices.IsSorted([]string{got[slices.Index(got, "http://big.example/0")], got[slices.Index(got, "http://big.example/1")]}) {
			t.Errorf("took %q: one host's links out of order", got)
		}
	})
	if reopen == nil {
		return
	}
	t.Run("persistent", func(t *testing.T) {
		f := open(t)
		if _, err := f.Add(ctx, link(t, "http://a.example/1", 0), link(t, "http://a.example/2", 1), link(t, "http://a.example/3", 1)); err != nil {
			t.Fatal(err)
		}
		l, _, _ := f.Next(ctx) // taken, not done: the run was killed
		f.Close()
		f = reopen(t)
		defer f.Close()
		if n, _ := f.Add(ctx, link(t, "http://a.example/2", 1)); n != 0 {
			t.Error("a key of the last run was added again")
		}
		got := drain(t, f)
		slices.Sort(got)
		if want := []string{"http://a.example/1", "http://a.example/2", "http://a.example/3"}; !slices.Equal(got, want) || !slices.Contains(got, l.URL.String()) {
			t.Errorf("after reopening: %q, want %q", got, want)
		}
	})
}
