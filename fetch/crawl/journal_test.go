package crawl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/rfc1738/fetch/url"
)

func testLink(t *testing.T, s string) Link {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return Link{URL: u, Key: u.String(), Depth: 1, Tag: "a"}
}

// A record torn by a kill in the middle of a write ends the journal: the
// frontier opens with what came before it, and appends after it.
func TestDiskFrontierTornRecord(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f, err := openDiskFrontier(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.Add(ctx, testLink(t, "http://a.example/1"), testLink(t, "http://a.example/2"), testLink(t, "http://a.example/3"))
	l, _, _ := f.Next(ctx)
	f.Done(ctx, l.Key)
	f.Close()
	path := filepath.Join(dir, journalName)
	whole, _ := os.ReadFile(path)
	torn := appendRecord(nil, recAdd, &memLink{key: "http://a.example/4"})
	os.WriteFile(path, append(whole, torn[:len(torn)-3]...), 0o644)

	f, err = openDiskFrontier(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := f.Add(ctx, testLink(t, "http://a.example/5")); n != 1 {
		t.Fatal("a link after the torn record was not added")
	}
	var got []string
	for {
		l, ok, err := f.Next(ctx)
		if err != nil || !ok {
			break
		}
		got = append(got, l.URL.String())
		f.Done(ctx, l.Key)
	}
	f.Close()
	if want := []string{"http://a.example/2", "http://a.example/3", "http://a.example/5"}; !slices.Equal(got, want) {
		t.Errorf("after the torn record: %q, want %q", got, want)
	}
	// Opened again, the records written after the cut are read: nothing
	// waits, and every key is known.
	f, err = openDiskFrontier(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if l, ok, _ := f.Next(ctx); ok {
		t.Errorf("opened a third time, %s waits again: the records after the torn one were lost", l.URL)
	}
	if n, _ := f.Add(ctx, testLink(t, "http://a.example/5")); n != 0 {
		t.Error("opened a third time, a key added after the torn record is new again")
	}
}

func TestDiskFrontierLocked(t *testing.T) {
	dir := t.TempDir()
	f, err := openDiskFrontier(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if g, err := OpenDiskFrontier(dir); !errors.Is(err, errLocked) {
		if g != nil {
			g.Close()
		}
		if runtime.GOOS == "linux" || runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
			t.Errorf("a second OpenDiskFrontier of one folder: %v, want it in use", err)
		}
	}
}

// A folder with an earlier version's state (frontier.db) and no journal is
// refused with ErrOlderState, not crawled again from the start; beside a
// journal the old file is no matter.
func TestDiskFrontierOlderState(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "frontier.db"), []byte("bbolt"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenDiskFrontier(dir); !errors.Is(err, ErrOlderState) {
		if f != nil {
			f.Close()
		}
		t.Fatalf("OpenDiskFrontier of a folder with frontier.db: %v, want ErrOlderState", err)
	}
	if err := os.WriteFile(filepath.Join(dir, journalName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenDiskFrontier(dir)
	if err != nil {
		t.Fatalf("with a journal beside it: %v", err)
	}
	f.Close()
}

// The disk frontier holds in memory what the memory frontier does: 16
// bytes a key and a bounded window of waiting links; the links are in its
// journal and its segment files. The bbolt file it replaced held every
// page it touched in the process's memory (mapped).
func TestDiskFrontierBounded(t *testing.T) {
	const n = 100_000
	ctx := context.Background()
	before := heapInuse()
	f, err := openDiskFrontier(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref, _ := url.Parse("http://a.example/big.html")
	batch := make([]Link, 0, 256)
	for i := range n {
		l := testLink(t, fmt.Sprintf("http://a.example/pages/%07d.html", i))
		l.Referrer = ref
		batch = append(batch, l)
		if len(batch) == cap(batch) || i == n-1 {
			if k, err := f.Add(ctx, batch...); err != nil || k != len(batch) {
				t.Fatalf("Add = %d, %v", k, err)
			}
			batch = batch[:0]
		}
	}
	if grown, limit := int64(heapInuse())-int64(before), int64(n*16*5/4+residentBytes+2<<20); grown > limit {
		t.Errorf("the heap grew by %d bytes for %d links, want at most %d", grown, n, limit)
	}
	if f.mem.resident > 2*chunkBytes {
		t.Errorf("%d bytes of links resident, want at most %d", f.mem.resident, 2*chunkBytes)
	}
}
