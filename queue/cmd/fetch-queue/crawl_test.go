package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// "fetch enqueue -r -l 1" starts a fleet crawl: a worker follows the
// seed's links one deep, no further, each page once. A second "enqueue -r"
// of the same seed while the crawl is queued extends it, queueing nothing;
// one after it ended starts crawl 2, which fetches the pages again (not
// robots.txt: the fleet keeps it).
func TestEnqueueRecursive(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<a href="/a">a</a> <a href="/b">b</a> <a href="/a">a again</a>`)
		case "/a":
			fmt.Fprint(w, `<a href="/deep">deep</a>`)
		case "/b":
			fmt.Fprint(w, `<a href="/">home</a>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	state, store := t.TempDir(), filepath.Join(t.TempDir(), "s")
	out := runQueue(t, "enqueue", "--state", state, "-r", "-l", "1", site.URL+"/")
	if !strings.Contains(out, "crawl started: 1 seeds queued") {
		t.Errorf("enqueue -r said %q", out)
	}
	if out := runQueue(t, "enqueue", "--state", state, "-r", "-l", "1", site.URL+"/"); !strings.Contains(out, "crawl 1 extended: 0 seeds queued (1 crawled before") {
		t.Errorf("enqueue -r again, before the crawl, said %q", out)
	}
	if out := runQueue(t, "results", "--state", state); !strings.Contains(out, "crawl: 1 URLs seen, 1 queued, 0 in flight") {
		t.Errorf("fetch results before the crawl said %q", out)
	}
	runQueue(t, "worker", "--state", state, "--store", store, "--drain", "-s")
	if out := runQueue(t, "results", "--state", state, "--json"); !strings.Contains(out, `"crawl":{"seen":3,"queued":0,"in_flight":0,"generation":1}`) {
		t.Errorf("fetch results --json after the crawl said %q", out)
	}
	got := stored(t, store)
	want := map[string]int{site.URL + "/": 0, site.URL + "/a": 0, site.URL + "/b": 0}
	if len(got) != len(want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	for u, st := range want {
		if s, ok := got[u]; !ok || s != st {
			t.Errorf("%s: stored %v (status %d), want status %d", u, ok, s, st)
		}
	}
	mu.Lock()
	slices.Sort(paths)
	if want := []string{"/", "/a", "/b", "/robots.txt"}; !slices.Equal(paths, want) {
		t.Errorf("requests %q, want %q", paths, want)
	}
	mu.Unlock()
	if out := runQueue(t, "enqueue", "--state", state, "-r", "-l", "1", site.URL+"/"); !strings.Contains(out, "crawl 2 started: 1 seeds queued (crawl 1 had ended") {
		t.Errorf("enqueue -r after the crawl said %q", out)
	}
	runQueue(t, "worker", "--state", state, "--store", store, "--drain", "-s")
	mu.Lock()
	slices.Sort(paths)
	if want := []string{"/", "/", "/a", "/a", "/b", "/b", "/robots.txt"}; !slices.Equal(paths, want) {
		t.Errorf("requests after crawl 2 %q, want %q", paths, want)
	}
	mu.Unlock()
}
