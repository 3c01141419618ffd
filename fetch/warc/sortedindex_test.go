package warc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// indexLines returns n CDXJ-like lines in a random order, some repeated,
// of lengths that vary.
func indexLines(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	lines := make([]string, n)
	for i := range lines {
		k := r.IntN(n / 2) // repeats
		lines[i] = fmt.Sprintf("com,example)/%d%s 2026112500%04d {\"url\": \"http://example.com/%d\"}\n", k, strings.Repeat("x", r.IntN(40)), r.IntN(10000), k)
	}
	return lines
}

// TestSortedIndex: with a bound small enough to spill many runs (and to
// merge them, past maxRuns), the index written is the lines sorted in
// memory, byte for byte; a line may come in pieces; the runs' files are
// gone once the index is closed.
func TestSortedIndex(t *testing.T) {
	lines := indexLines(5000)
	want := slices.Clone(lines)
	slices.Sort(want)
	for _, tt := range []struct {
		name      string
		maxMemory int
		maxRuns   int
		wantRuns  bool
	}{
		{"in memory", 0, 0, false},
		{"runs", 16 << 10, 0, true},
		{"runs merged", 4 << 10, 5, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			x := &SortedIndex{MaxMemory: tt.maxMemory, TempDir: dir, maxRuns: tt.maxRuns}
			spilled := false
			for i, l := range lines {
				if i%7 == 0 {
					// In two pieces.
					x.Write([]byte(l[:5]))
					l = l[5:]
				}
				if _, err := x.Write([]byte(l)); err != nil {
					t.Fatal(err)
				}
				x.mu.Lock()
				if tt.maxMemory > 0 && len(x.buf) >= tt.maxMemory {
					t.Fatalf("%d bytes held, the bound is %d", len(x.buf), tt.maxMemory)
				}
				spilled = spilled || len(x.runs) > 0
				if tt.maxRuns > 0 && len(x.runs) > tt.maxRuns {
					t.Fatalf("%d runs kept, more than %d", len(x.runs), tt.maxRuns)
				}
				x.mu.Unlock()
			}
			if spilled != tt.wantRuns {
				t.Errorf("runs spilled: %v, want %v", spilled, tt.wantRuns)
			}
			var out bytes.Buffer
			n, err := x.WriteTo(&out)
			if err != nil || n != int64(out.Len()) {
				t.Fatalf("WriteTo = %d, %v; wrote %d", n, err, out.Len())
			}
			if got := out.String(); got != strings.Join(want, "") {
				t.Errorf("the index differs from the lines sorted in memory (%d bytes, want %d)", len(got), len(strings.Join(want, "")))
			}
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("temporary files left: %v", ents)
			}
		})
	}
}

// Closed without WriteTo, a SortedIndex that spilled leaves no file.
func TestSortedIndexClose(t *testing.T) {
	dir := t.TempDir()
	x := &SortedIndex{MaxMemory: 1 << 10, TempDir: dir}
	for _, l := range indexLines(500) {
		x.Write([]byte(l))
	}
	if len(x.runs) == 0 {
		t.Fatal("nothing spilled")
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// A Writer's index through a SortedIndex is its lines sorted.
func TestWriterSortedIndex(t *testing.T) {
	var plain bytes.Buffer
	x := &SortedIndex{MaxMemory: 512, TempDir: t.TempDir()}
	defer x.Close()
	for _, idx := range []interface{ Write([]byte) (int, error) }{&plain, x} {
		w := NewWriter(&bytes.Buffer{}, Options{Index: idx, Filename: "f.warc", Now: func() time.Time { return time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC) }})
		for i := range 40 {
			u := fmt.Sprintf("http://h%d.example/%d", (i*7)%13, i)
			if _, err := w.WriteResource(&Header{TargetURI: u, ContentType: "text/plain"}, strings.NewReader(u)); err != nil {
				t.Fatal(err)
			}
		}
	}
	lines := strings.SplitAfter(plain.String(), "\n")
	slices.Sort(lines)
	var out bytes.Buffer
	if _, err := x.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	if out.String() != strings.Join(lines, "") || out.Len() == 0 {
		t.Errorf("sorted index\n%s\nwant\n%s", out.String(), strings.Join(lines, ""))
	}
}
