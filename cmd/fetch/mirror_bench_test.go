package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkMirrorWrite writes a mirror's files as fetch -r does, a page
// of bench/crawl.sh's site (about 400 bytes) at a time, with the
// server's time, into one folder: one op is one file.
func BenchmarkMirrorWrite(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "127.0.0.1:8080", "site")
	page := strings.Repeat("<a href=\"p1.html\">1</a>\n", 16)
	mod := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		name := filepath.Join(dir, "p"+strconv.Itoa(i%5000)+".html")
		if err := writeFileAtomic(name, strings.NewReader(page), int64(len(page)), mod); err != nil {
			b.Fatal(err)
		}
	}
}
