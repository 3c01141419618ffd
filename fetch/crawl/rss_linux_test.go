package crawl

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/url"
)

// rssFile returns the process's resident memory that maps files (RssFile
// in /proc/self/status), in bytes.
func rssFile(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// The disk frontier maps no file into memory: what it writes goes through
// write(2), so the process's resident memory does not grow with its file.
// The bbolt file it replaced was a memory map whose every page touched
// counted (153 MB for a million links).
func TestDiskFrontierMapsNothing(t *testing.T) {
	const n = 100_000
	ctx := context.Background()
	f, err := OpenDiskFrontier(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref, _ := url.Parse("http://a.example/big.html")
	before := rssFile(t)
	batch := make([]Link, 0, 256)
	for i := range n {
		u, _ := url.Parse(fmt.Sprintf("http://a.example/pages/%07d.html", i))
		batch = append(batch, Link{URL: u, Key: u.String(), Referrer: ref, Depth: 1, Tag: "a"})
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := f.Add(ctx, batch...); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for range n / 2 {
		l, ok, err := f.Next(ctx)
		if err != nil || !ok {
			t.Fatalf("Next = %v, %v", ok, err)
		}
		f.Done(ctx, l.Key)
	}
	grown := rssFile(t) - before
	if grown > 8<<20 {
		t.Errorf("resident file-backed memory grew by %d bytes over %d links, want at most 8 MiB", grown, n)
	}
}
