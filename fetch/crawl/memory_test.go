package crawl

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/rfc1738/fetch/url"
)

func TestSeenSet(t *testing.T) {
	s := newSeenSet()
	want := map[keyHash]bool{}
	for i := range 3*seenStage + 17 {
		h := hashKey(fmt.Sprintf("http://a.example/%d", i))
		if !s.add(h) {
			t.Fatalf("add(%d) = false, want new", i)
		}
		want[h] = true
		if i%1000 == 0 && s.add(h) {
			t.Fatalf("add(%d) again = true", i)
		}
	}
	for h := range want {
		if !s.has(h) {
			t.Fatalf("has(%x) = false after add", h)
		}
	}
	for i := range 1000 {
		if h := hashKey(fmt.Sprintf("http://b.example/%d", i)); s.has(h) {
			t.Fatalf("has(b/%d) = true, never added", i)
		}
	}
	if s.n != len(want) {
		t.Errorf("n = %d, want %d", s.n, len(want))
	}
}

// heapInuse returns the heap in use after a collection.
func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestMemoryFrontierBounded adds the links of a page of 200,000 links (to
// one host) and checks that the frontier holds little more than the 16
// bytes of each key's hash: the rest waits on disk. Before the frontier
// spilled, it held some 250 bytes a link.
func TestMemoryFrontierBounded(t *testing.T) {
	const n = 200_000
	ctx := context.Background()
	ref, _ := url.Parse("http://a.example/big.html")
	before := heapInuse()
	f := newMemFrontier(chunkBytes, residentBytes, segmentBytes, t.TempDir())
	defer f.Close()
	batch := make([]Link, 0, 256)
	for i := range n {
		u, err := url.Parse(fmt.Sprintf("http://a.example/pages/%07d.html", i))
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, Link{URL: u, Key: u.String(), Referrer: ref, Depth: 1, Tag: "a"})
		if len(batch) == cap(batch) || i == n-1 {
			if k, err := f.Add(ctx, batch...); err != nil || k != len(batch) {
				t.Fatalf("Add = %d, %v", k, err)
			}
			batch = batch[:0]
		}
	}
	grown := int64(heapInuse()) - int64(before)
	if limit := int64(n*16*5/4 + residentBytes + 2<<20); grown > limit {
		t.Errorf("the heap grew by %d bytes for %d links, want at most %d", grown, n, limit)
	}
	if f.resident > 2*chunkBytes {
		t.Errorf("%d bytes of links resident, want at most %d (one host)", f.resident, 2*chunkBytes)
	}
	if f.spill.segments() == 0 {
		t.Error("no segment written")
	}
	for i := range n {
		l, ok, err := f.Next(ctx)
		if err != nil || !ok {
			t.Fatalf("Next %d = %v, %v", i, ok, err)
		}
		if want := fmt.Sprintf("http://a.example/pages/%07d.html", i); l.URL.String() != want || l.Referrer.String() != ref.String() || l.Depth != 1 {
			t.Fatalf("Next %d = %s from %v depth %d, want %s", i, l.URL, l.Referrer, l.Depth, want)
		}
		f.Done(ctx, l.Key)
	}
	if _, ok, _ := f.Next(ctx); ok {
		t.Error("a link more than added")
	}
	if s := f.spill.segments(); s > 1 {
		t.Errorf("%d segments open after every chunk was read, want at most the current one", s)
	}
}

// TestMemoryFrontierManyHosts: a few links on each of many hosts stay
// within the bound too, and every link comes back once, each host's in
// order; Close leaves no file.
func TestMemoryFrontierManyHosts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f := newMemFrontier(512, 4096, 8192, dir)
	const hosts, per = 300, 20
	const bound = 4096 + 512 + 64 // the budget, a head or tail, a link
	for i := range per {
		for h := range hosts {
			u, _ := url.Parse(fmt.Sprintf("http://h%d.example/%d", h, i))
			if _, err := f.Add(ctx, Link{URL: u, Key: u.String()}); err != nil {
				t.Fatal(err)
			}
			if f.resident > bound {
				t.Fatalf("%d bytes resident, want at most %d", f.resident, bound)
			}
		}
	}
	next := map[string]int{}
	for range hosts * per {
		l, ok, err := f.Next(ctx)
		if err != nil || !ok {
			t.Fatalf("Next = %v, %v", ok, err)
		}
		if f.resident > bound {
			t.Fatalf("%d bytes resident while taking, want at most %d", f.resident, bound)
		}
		h := l.URL.Host
		if want := fmt.Sprintf("http://%s/%d", h, next[h]); l.URL.String() != want {
			t.Fatalf("Next = %s, want %s", l.URL, want)
		}
		next[h]++
	}
	if _, ok, _ := f.Next(ctx); ok {
		t.Error("a link more than added")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Close left %d files", len(ents))
	}
}
