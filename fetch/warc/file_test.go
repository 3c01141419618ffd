package warc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRotatedName(t *testing.T) {
	for in, want := range map[string]string{"a.warc.gz": "a-00002.warc.gz", "a.warc": "a-00002.warc", "a.gz": "a-00002.gz", "a": "a-00002"} {
		if got := RotatedName(in, 2); got != want {
			t.Errorf("RotatedName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"d/a.warc.gz": "d/a.cdxj", "a.warc": "a.cdxj", "a.gz": "a.cdxj", "a": "a.cdxj"} {
		if got := IndexName(in); got != want {
			t.Errorf("IndexName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCreate: a File rotates at MaxSize, each file beginning with its
// warcinfo record, and on Close writes the CDXJ index of every file's
// records beside the first, sorted, the same whether its lines spilled to
// temporary files (a small IndexMemory) or not; none of those is left.
func TestCreate(t *testing.T) {
	var indexes []string
	for _, mem := range []int{0, 300} {
		dir, tmp := t.TempDir(), t.TempDir()
		name := filepath.Join(dir, "a.warc")
		f, err := Create(name, FileOptions{Options: Options{MaxSize: 2 << 10, TempDir: tmp, Software: "test", Now: func() time.Time { return time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC) }}, CDX: true, IndexMemory: mem})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 30 {
			u := fmt.Sprintf("http://h%d.example/%d", (i*7)%11, i)
			if _, err := f.WriteResource(&Header{TargetURI: u, ContentType: "text/plain"}, strings.NewReader(strings.Repeat(u, 10))); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if len(names) < 4 || !slices.Contains(names, "a.cdxj") || !slices.Contains(names, "a-00001.warc") || !slices.Contains(names, "a.warc") {
			t.Fatalf("files %q: want a.warc, a-00001.warc, ... and a.cdxj", names)
		}
		for _, n := range names {
			if strings.HasPrefix(n, ".") {
				t.Errorf("temporary file left: %s", n)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, n)); strings.HasSuffix(n, ".warc") && !strings.HasPrefix(string(b), "WARC/1.1\r\nWARC-Type: warcinfo\r\n") {
				t.Errorf("%s has no warcinfo record", n)
			}
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("IndexMemory %d: temporary files left: %v", mem, left)
		}
		idx, err := os.ReadFile(filepath.Join(dir, "a.cdxj"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(idx), "\n"), "\n")
		if len(lines) != 30 || !slices.IsSorted(lines) {
			t.Errorf("IndexMemory %d: %d lines, sorted %v:\n%s", mem, len(lines), slices.IsSorted(lines), idx)
		}
		indexes = append(indexes, string(idx))
	}
	if indexes[0] != indexes[1] {
		t.Errorf("the index spilled differs from the one in memory:\n%s\n%s", indexes[0], indexes[1])
	}
}
