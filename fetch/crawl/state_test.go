package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// versioned serves a gopher hole of n items whose modification times it
// knows, honouring If-Modified-Since as a server does.
type versioned struct {
	mu    sync.Mutex
	n     int
	mod   map[string]time.Time
	calls map[string]int
	ims   map[string]time.Time // the last If-Modified-Since asked
}

func (v *versioned) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	u := req.URL.String()
	v.calls[u]++
	v.ims[u] = req.IfModifiedSince
	mod := v.mod[u]
	if !req.IfModifiedSince.IsZero() && !mod.After(req.IfModifiedSince) {
		return nil, fetch.Errorf(fetch.NotModified, "not modified")
	}
	body := "item\n"
	res := &fetch.Resource{URL: req.URL, ModTime: mod, Kind: fetch.ResourceFile}
	if req.URL.Gopher().Type == "1" {
		var b strings.Builder
		for i := range v.n {
			fmt.Fprintf(&b, "gopher://hole.example/0/%d\n", i)
		}
		body, res.Kind = b.String(), fetch.ResourceMenu
	}
	res.Size, res.Body = int64(len(body)), io.NopCloser(strings.NewReader(body))
	return res, nil
}

func (v *versioned) ListBody(req *fetch.Request, res *fetch.Resource, body io.Reader) (*fetch.Listing, error) {
	return bodySite{&site{}}.ListBody(req, res, body)
}

func newVersioned(n int) *versioned {
	v := &versioned{n: n, mod: map[string]time.Time{}, calls: map[string]int{}, ims: map[string]time.Time{}}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v.mod["gopher://hole.example/1/"] = t0
	for i := range n {
		v.mod[fmt.Sprintf("gopher://hole.example/0/%d", i)] = t0
	}
	return v
}

// A crawl stopped midway and run again with the same disk frontier goes
// on where it stopped: every item fetched, none more than once but for
// those in flight at the stop (at most Parallel).
func TestCrawlResumes(t *testing.T) {
	dir := t.TempDir()
	v := newVersioned(30)
	c := &fetch.Client{}
	c.Register("gopher", v)
	stop := errors.New("killed")
	for run := 0; run < 2; run++ {
		fr, err := OpenDiskFrontier(dir)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		visited := 0
		cr := &Crawler{Client: c, Depth: 1, Parallel: 2, Frontier: fr, Visit: func(ctx context.Context, p *Page) error {
			mu.Lock()
			defer mu.Unlock()
			visited++
			if run == 0 && visited == 10 {
				return stop
			}
			return nil
		}}
		st, err := cr.Run(t.Context(), "gopher://hole.example/1/")
		fr.Close()
		if run == 0 && err != stop || run == 1 && (err != nil || st.Failed != 0) {
			t.Fatalf("run %d: %+v, %v", run, st, err)
		}
	}
	twice := 0
	for u, n := range v.calls {
		if n > 2 || n == 2 && u == "gopher://hole.example/1/" {
			t.Errorf("%s fetched %d times", u, n)
		}
		if n == 2 {
			twice++
		}
	}
	if len(v.calls) != 31 || twice > 2 {
		t.Errorf("%d URLs fetched, %d of them twice; want 31, at most 2 (Parallel) twice", len(v.calls), twice)
	}
}

// A finished crawl run again with its disk frontier is a conditional
// recrawl: every URL asked with If-Modified-Since from what was stored,
// unchanged ones moving no body and not visited, changed ones fetched.
func TestCrawlRecrawl(t *testing.T) {
	dir := t.TempDir()
	v := newVersioned(5)
	c := &fetch.Client{}
	c.Register("gopher", v)
	var st Stats
	var visited []string
	for run := 0; run < 2; run++ {
		if run == 1 {
			v.mu.Lock()
			v.mod["gopher://hole.example/0/3"] = v.mod["gopher://hole.example/0/3"].Add(time.Hour)
			v.mu.Unlock()
		}
		fr, err := OpenDiskFrontier(dir)
		if err != nil {
			t.Fatal(err)
		}
		visited = nil
		var mu sync.Mutex
		cr := &Crawler{Client: c, Depth: 1, Frontier: fr, Visit: func(ctx context.Context, p *Page) error {
			mu.Lock()
			visited = append(visited, p.URL.String())
			mu.Unlock()
			return nil
		}}
		st, err = cr.Run(t.Context(), "gopher://hole.example/1/")
		fr.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if st.Unchanged != 5 || st.Fetched != 1 || len(visited) != 1 || visited[0] != "gopher://hole.example/0/3" {
		t.Errorf("second round: %+v, visited %q; want 5 unchanged, the changed item fetched", st, visited)
	}
	for u, n := range v.calls {
		if n != 2 || v.ims[u].IsZero() {
			t.Errorf("%s: %d requests, the last If-Modified-Since %v; want 2, conditional", u, n, v.ims[u])
		}
	}
}
