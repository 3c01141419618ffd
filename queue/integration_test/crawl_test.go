//go:build integration

package integration_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/crawl"
	"github.com/rfc1738/fetch/fetch/crawl/frontiertest"
	"github.com/rfc1738/fetch/queue"
)

// The queue's Frontier passes the crawl package's conformance kit on the
// nats-server cluster (replicas 3 by default there) and on the embedded
// server; reopening is a new connection's Frontier, as another worker's.
func TestQueueFrontierConformance(t *testing.T) {
	for _, m := range queueModes(t) {
		t.Run(m.name, func(t *testing.T) {
			var args []string
			opts := func() queue.Options {
				if args[0] == "--nats" {
					return queue.Options{NATS: args[1], AckWait: 5 * time.Second}
				}
				return queue.Options{StateDir: args[1], AckWait: 5 * time.Second}
			}
			openOn := func(t *testing.T) crawl.Frontier {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				q, err := queue.Open(ctx, opts())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { q.Close() })
				f, err := q.OpenFrontier(ctx, queue.FrontierOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			frontiertest.Test(t, func(t *testing.T) crawl.Frontier {
				args = m.fresh(t)
				return openOn(t)
			}, openOn)
		})
	}
}

// treeSite is a generated site of n pages, /p/<i>.html, each linking to
// its two children in a binary tree, to the next page and to the first,
// and the root to /private/x, which robots.txt disallows. It counts the
// requests of each path.
type treeSite struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newTreeSite(t *testing.T, n int) *treeSite {
	s := &treeSite{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
			return
		}
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d.html", &i); err != nil || i >= n {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><h1>page %d</h1>\n", i)
		for _, j := range []int{2*i + 1, 2*i + 2, i + 1, 0} {
			if j < n {
				fmt.Fprintf(w, "<a href=\"/p/%d.html\">%d</a>\n", j, j)
			}
		}
		if i == 0 {
			fmt.Fprint(w, "<a href=\"/private/x\">private</a>\n")
		}
		fmt.Fprint(w, "</body></html>\n")
	}))
	t.Cleanup(s.Close)
	return s
}

// A fleet crawl: "fetch enqueue -r" of a generated site's root, three
// "fetch worker --drain" processes with a store each. Every page is
// stored once across the three stores and requested once, robots.txt too
// (the workers share it through FETCH_ROBOTS); nothing it disallows.
func TestQueueFleetCrawl(t *testing.T) {
	const pages, workers = 600, 3
	for _, m := range queueModes(t) {
		t.Run(m.name, func(t *testing.T) {
			site := newTreeSite(t, pages)
			q := m.fresh(t)
			r := runFetch(t, nil, append(append([]string{"enqueue"}, q...), "-r", "-l", "100", site.URL+"/p/0.html")...)
			wantCode(t, r, 0, "fetch enqueue -r")
			start := time.Now()
			var cmds []*exec.Cmd
			var stores []string
			for i := range workers {
				store := filepath.Join(t.TempDir(), fmt.Sprintf("w%d", i))
				stores = append(stores, store)
				cmds = append(cmds, startWorker(t, q, store, "--drain", "--parallel", "8", "--per-host", "8"))
			}
			for i, cmd := range cmds {
				if err := waitExit(cmd, 2*time.Minute); err != nil {
					t.Fatalf("worker %d: %v", i, err)
				}
			}
			t.Logf("%d pages crawled by %d workers in %v", pages, workers, time.Since(start).Round(time.Millisecond))
			count := map[string]int{}
			for _, store := range stores {
				f, err := os.Open(filepath.Join(store, "results.jsonl"))
				if os.IsNotExist(err) {
					continue // a worker that stored nothing
				}
				if err != nil {
					t.Fatal(err)
				}
				for sc := bufio.NewScanner(f); sc.Scan(); {
					var rec record
					if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
						t.Fatal(err)
					}
					if rec.Status != 0 {
						t.Errorf("%+v: want fetched", rec)
					}
					count[rec.URL]++
				}
				f.Close()
			}
			for i := range pages {
				if u := fmt.Sprintf("%s/p/%d.html", site.URL, i); count[u] != 1 {
					t.Errorf("%s stored %d times, want once", u, count[u])
				}
			}
			if len(count) != pages {
				t.Errorf("%d URLs stored, want %d", len(count), pages)
			}
			site.mu.Lock()
			defer site.mu.Unlock()
			for p, c := range site.hits {
				if c == 1 {
					continue
				}
				t.Errorf("%s requested %d times", p, c)
			}
			if len(site.hits) != pages+1 || site.hits["/private/x"] != 0 {
				t.Errorf("%d paths requested (/private/x %d times), want the %d pages and robots.txt", len(site.hits), site.hits["/private/x"], pages)
			}
		})
	}
}
