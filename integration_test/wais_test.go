//go:build integration

package integration_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// waisHits runs a search and returns its lines, split into their five
// tab-separated fields (score, type, length, headline, URL).
func waisHits(t *testing.T, u string) [][]string {
	t.Helper()
	r := runFetch(t, "", nil, "-sS", u)
	wantCode(t, r, 0, "search "+u)
	var hits [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(r.Stdout), "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("hit line %q: %d fields, want 5", line, len(f))
		}
		hits = append(hits, f)
	}
	return hits
}

func TestWAISSearchAndRetrieve(t *testing.T) {
	addr := env(t, "FETCH_IT_WAIS_ADDR")
	fixtures := env(t, "FETCH_IT_WAIS_FIXTURES")
	hits := waisHits(t, "wais://"+addr+"/demo?gophers")
	if len(hits) != 2 || !strings.HasPrefix(hits[0][3], "alpha.txt") || !strings.HasPrefix(hits[1][3], "gamma.txt") {
		t.Fatalf("hits for gophers: %q", hits)
	}
	if hits[1][1] != "TEXT" || hits[1][2] != "125" || !strings.HasPrefix(hits[1][4], "wais://"+addr+"/demo/TEXT/") {
		t.Errorf("gamma hit: %q", hits[1])
	}
	if hits := waisHits(t, "wais://"+addr+"/demo?gophers+prospero"); len(hits) != 3 {
		t.Errorf("gophers+prospero: %d hits, want 3", len(hits))
	}
	if hits := waisHits(t, "wais://"+addr+"/demo?zzzzqqq"); len(hits) != 0 {
		t.Errorf("no-hits search listed %q", hits)
	}

	want, err := os.ReadFile(filepath.Join(fixtures, "docs", "gamma.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The hit's URL carries the length the search gave (libwww's
	// database/wtype/length/wpath), which bounds the retrieval: in ranges
	// of 25, [0,25) to [100,125), as recorded.
	r := runFetch(t, "", nil, "-sS", "--wais-chunk-size", "25", hits[1][4])
	if r.Code == 11 {
		t.Skipf("the safety policy refuses the hit's URL: its DocumentID is binary (%%00, %%0D, ... inside a length-prefixed element, not a protocol line): %s", r.Stderr)
	}
	wantCode(t, r, 0, "retrieve the gamma hit")
	if !bytes.Equal(r.Stdout, want) {
		t.Errorf("gamma.txt: got %q, want %q", r.Stdout, want)
	}
	// -I reports the length the search gave, though its one range does
	// not reach the end.
	r = runFetch(t, "", nil, "-sS", "-I", "--wais-chunk-size", "25", hits[1][4])
	wantCode(t, r, 0, "-I of the gamma hit")
	if !strings.Contains(string(r.Stdout), "size: 125\n") {
		t.Errorf("-I of the gamma hit: no size 125:\n%s", r.Stdout)
	}
}

func TestWAISDescription(t *testing.T) {
	addr := env(t, "FETCH_IT_WAIS_ADDR")
	want, err := os.ReadFile(filepath.Join(env(t, "FETCH_IT_WAIS_FIXTURES"), "index", "demo.src"))
	if err != nil {
		t.Fatal(err)
	}
	r := runFetch(t, "", nil, "-sS", "--wais-chunk-size", "10000", "wais://"+addr+"/demo")
	wantCode(t, r, 0, "database description")
	if !bytes.Equal(r.Stdout, want) {
		t.Errorf("description: got %q, want %q", r.Stdout, want)
	}
}

func TestWAISErrorsAndPlan(t *testing.T) {
	addr := env(t, "FETCH_IT_WAIS_ADDR")
	r := runFetch(t, "", nil, "-sS", "wais://"+addr+"/nosuchdb?fox")
	wantCode(t, r, 7, "unknown database")
	if !strings.Contains(string(r.Stderr), "S1") {
		t.Errorf("stderr %q does not name the diagnostic", r.Stderr)
	}
	r = runFetch(t, "", nil, "-sS", "--wais-chunk-size", "50", "wais://"+addr+"/demo/TEXT/garbage")
	wantCode(t, r, 7, "bad document id")

	r = runFetch(t, "", nil, "--dry-run", "wais://"+addr+"/demo?gophers")
	wantCode(t, r, 0, "dry run")
	if !strings.Contains(string(r.Stdout), `search: database "demo", query-type 3, seed-words "gophers"`) {
		t.Errorf("dry run printed %q", r.Stdout)
	}
	r = runFetch(t, "", nil, "-I", "wais://"+addr+"/demo?gophers")
	wantCode(t, r, 0, "-I")
	if !strings.Contains(string(r.Stdout), "kind: list") {
		t.Errorf("-I printed %q", r.Stdout)
	}
}
