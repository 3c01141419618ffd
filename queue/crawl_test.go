package queue_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/queue"
)

// treeSite is a generated site of n pages, /p/<i>.html, each linking to
// its two children in a binary tree, to the next page and to the first
// (so that most links are met many times), and the root to /private/,
// which robots.txt disallows. It counts the requests of each path.
type treeSite struct {
	*httptest.Server
	n    int
	mu   sync.Mutex
	hits map[string]int
}

func newTreeSite(t *testing.T, n int) *treeSite {
	s := &treeSite{n: n, hits: map[string]int{}}
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
			// /gone.html among them
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

// TestFleetCrawl crawls a generated site with three workers sharing the
// queue's frontier, each with a store of its own: every page is stored
// once across the three stores, each requested once (robots.txt too, once
// for the fleet: the workers share it through FETCH_ROBOTS), nothing
// robots.txt disallows is requested.
func TestFleetCrawl(t *testing.T) {
	const pages = 300
	site := newTreeSite(t, pages)
	q := open(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n, err := q.StartCrawl(ctx, queue.Crawl{Seeds: []string{site.URL + "/p/0.html"}, Depth: 50})
	if err != nil || n != 1 {
		t.Fatalf("StartCrawl = %d, %v; want 1 seed queued", n, err)
	}
	const workers = 3
	stores := make([]*queue.Store, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		st, err := queue.OpenStore(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		stores[i] = st
		w := &queue.Worker{Queue: q, Client: client(t), Store: st, ID: fmt.Sprintf("w%d", i), Parallel: 4, PerHost: 4, Drain: true}
		wg.Go(func() { errs[i] = w.Run(ctx) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	stored := map[string]int{}
	perWorker := make([]int, workers)
	for i, st := range stores {
		for _, r := range readResults(t, st.Dir()) {
			if r.Status != 0 || !r.Crawl {
				t.Errorf("record %+v: want a page of the crawl, fetched", r)
			}
			stored[r.URL]++
			perWorker[i]++
		}
	}
	for i := range pages {
		u := fmt.Sprintf("%s/p/%d.html", site.URL, i)
		if stored[u] != 1 {
			t.Errorf("%s stored %d times, want once", u, stored[u])
		}
	}
	if len(stored) != pages {
		t.Errorf("%d URLs stored, want the %d pages", len(stored), pages)
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	for p, c := range site.hits {
		switch {
		case c != 1:
			t.Errorf("%s requested %d times, want once", p, c)
		}
	}
	if site.hits["/private/x"] != 0 {
		t.Error("a path robots.txt disallows was requested")
	}
	if len(site.hits) != pages+1 {
		t.Errorf("%d paths requested, want the %d pages and robots.txt", len(site.hits), pages)
	}
	t.Logf("pages stored by each worker: %v", perWorker)
}

// A robots.txt one worker fetched is obeyed by another, which does not
// fetch it: the first crawls a page of the site; then the site's
// robots.txt would allow everything, but the second worker, crawling a
// disallowed page the crawl was given meanwhile, reads the file the
// first kept in FETCH_ROBOTS, and leaves the page out.
func TestFleetCrawlSharesRobots(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	rules := "User-agent: *\nDisallow: /private/\n"
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		hits[r.URL.Path]++
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, rules)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body>%s</body></html>\n", r.URL.Path)
	}))
	defer site.Close()
	q := open(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	crawlWith := func(id string, seed string) *queue.Store {
		t.Helper()
		if _, err := q.StartCrawl(ctx, queue.Crawl{Seeds: []string{seed}}); err != nil {
			t.Fatal(err)
		}
		st, err := queue.OpenStore(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		w := &queue.Worker{Queue: q, Client: client(t), Store: st, ID: id, Parallel: 2, Drain: true}
		if err := w.Run(ctx); err != nil {
			t.Fatal(err)
		}
		return st
	}
	crawlWith("first", site.URL+"/a.html")
	mu.Lock()
	rules = "User-agent: *\nAllow: /\n"
	mu.Unlock()
	st := crawlWith("second", site.URL+"/private/x.html")
	mu.Lock()
	defer mu.Unlock()
	if hits["/robots.txt"] != 1 || hits["/a.html"] != 1 || hits["/private/x.html"] != 0 {
		t.Errorf("requests %v; want robots.txt and /a.html once, /private/x.html never", hits)
	}
	if b, err := os.ReadFile(filepath.Join(st.Dir(), queue.ResultsName)); len(b) != 0 || err != nil && !os.IsNotExist(err) {
		t.Errorf("the second worker stored %q (%v), want nothing", b, err)
	}
}

// modSite is a site of n pages, /p/<i>.html, each linking to its two
// children in a binary tree, served with a Last-Modified time (and 304 to
// an If-Modified-Since not older). It counts each path's requests, those
// with If-Modified-Since, and the 304s.
type modSite struct {
	*httptest.Server
	mu          sync.Mutex
	mod         map[int]time.Time
	hits, ims   map[string]int
	notModified int
	// etags serves each page with an entity tag made of its time and no
	// Last-Modified; ims then counts the requests with If-None-Match.
	etags bool
}

func newModSite(t *testing.T, n int) *modSite {
	s := &modSite{mod: map[int]time.Time{}, hits: map[string]int{}, ims: map[string]int{}}
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range n {
		s.mod[i] = base
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.hits[r.URL.Path]++
		if !s.etags && r.Header.Get("If-Modified-Since") != "" || s.etags && r.Header.Get("If-None-Match") != "" {
			s.ims[r.URL.Path]++
		}
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d.html", &i); err != nil || i >= n {
			// /gone.html among them
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<html><body><h1>page %d of %v</h1>\n", i, s.mod[i])
		if i == 0 {
			b.WriteString("<a href=\"/gone.html\">gone</a>\n")
		}
		for _, j := range []int{2*i + 1, 2*i + 2} {
			if j < n {
				fmt.Fprintf(&b, "<a href=\"/p/%d.html\">%d</a>\n", j, j)
			}
		}
		w.Header().Set("Content-Type", "text/html")
		rw := &statusWriter{ResponseWriter: w}
		mod := s.mod[i]
		if s.etags {
			w.Header().Set("ETag", fmt.Sprintf(`"%d-%d"`, i, mod.Unix()))
			mod = time.Time{}
		}
		http.ServeContent(rw, r, "", mod, strings.NewReader(b.String()))
		if rw.status == http.StatusNotModified {
			s.notModified++
		}
	}))
	t.Cleanup(s.Close)
	return s
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// A fleet crawl started again once the last one ended is a new crawl: every
// page is requested again, conditionally on the modification time the
// workers' store holds (an unchanged page answered 304 and its links
// followed from the stored copy; a changed one stored again; a missing
// one recorded failed again), robots.txt not again (FETCH_ROBOTS keeps
// it). A crawl started again while its links are still queued is
// extended instead: its seen set stays. A third crawl removes the first's
// links from the stream.
func TestFleetRecrawl(t *testing.T) {
	const pages, workers = 40, 3
	site := newModSite(t, pages)
	q := open(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := queue.OpenStore(t.TempDir()) // shared by the workers
	if err != nil {
		t.Fatal(err)
	}
	seed := site.URL + "/p/0.html"
	crawlOnce := func(wantGen int) {
		t.Helper()
		if c, ok, err := q.CurrentCrawl(ctx); err != nil || !ok || c.Generation != wantGen {
			t.Fatalf("CurrentCrawl = generation %d, %v, %v; want %d", c.Generation, ok, err, wantGen)
		}
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for i := range workers {
			w := &queue.Worker{Queue: q, Client: client(t), Store: st, ID: fmt.Sprintf("w%d", i), Parallel: 4, PerHost: 4, Drain: true}
			wg.Go(func() { errs[i] = w.Run(ctx) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, want := range []int{1, 0} { // the second is folded into the first
		if n, err := q.StartCrawl(ctx, queue.Crawl{Seeds: []string{seed}, Depth: 20}); err != nil || n != want {
			t.Fatalf("StartCrawl %d = %d, %v; want %d queued", i, n, err, want)
		}
	}
	crawlOnce(1)
	site.mu.Lock()
	for i := range pages {
		if p := fmt.Sprintf("/p/%d.html", i); site.hits[p] != 1 || site.ims[p] != 0 {
			t.Errorf("first crawl: %s requested %d times (%d conditional), want once, whole", p, site.hits[p], site.ims[p])
		}
	}
	site.mod[5] = site.mod[5].Add(time.Hour) // page 5 changes
	clear(site.hits)
	site.mu.Unlock()

	if n, err := q.StartCrawl(ctx, queue.Crawl{Seeds: []string{seed}, Depth: 20}); err != nil || n != 1 {
		t.Fatalf("StartCrawl after the crawl ended = %d, %v; want the seed queued", n, err)
	}
	crawlOnce(2)
	site.mu.Lock()
	for i := range pages {
		if p := fmt.Sprintf("/p/%d.html", i); site.hits[p] != 1 || site.ims[p] != 1 {
			t.Errorf("second crawl: %s requested %d times (%d conditional), want once more, conditional", p, site.hits[p], site.ims[p])
		}
	}
	if site.hits["/robots.txt"] != 0 || site.notModified != pages-1 {
		t.Errorf("second crawl: robots.txt requested %d times, %d answered 304; want 0 and %d", site.hits["/robots.txt"], site.notModified, pages-1)
	}
	var five []queue.Record
	for _, r := range readResults(t, st.Dir()) {
		if r.URL == site.URL+"/p/5.html" {
			five = append(five, r)
		}
	}
	if len(five) != 2 || five[1].ModTime == nil || !five[1].ModTime.Equal(site.mod[5]) {
		t.Errorf("the changed page's records: %+v, want two, the second of its new time", five)
	}
	var gone []queue.Record
	for _, r := range readResults(t, st.Dir()) {
		if r.URL == site.URL+"/gone.html" {
			gone = append(gone, r)
		}
	}
	if len(gone) != 2 || gone[0].Status == 0 || gone[1].Status == 0 || gone[0].Seq == 0 || gone[0].Seq == gone[1].Seq {
		t.Errorf("the missing page's records: %+v, want two failures, one a crawl", gone)
	}
	if s, err := q.Stats(ctx); err != nil || s.Crawl == nil || s.Crawl.Seen != pages+1 || s.Crawl.Generation != 2 {
		t.Errorf("Stats = %+v, %v; want crawl 2 with %d links", s.Crawl, err, pages+1)
	}
	clear(site.hits)
	site.mu.Unlock()

	// Crawl 3 removes crawl 1's links (its seen set) from the stream,
	// and is crawled whole all the same.
	if n, err := q.StartCrawl(ctx, queue.Crawl{Seeds: []string{seed}, Depth: 20}); err != nil || n != 1 {
		t.Fatalf("StartCrawl after crawl 2 = %d, %v; want the seed queued", n, err)
	}
	crawlOnce(3)
	site.mu.Lock()
	defer site.mu.Unlock()
	for i := range pages {
		if p := fmt.Sprintf("/p/%d.html", i); site.hits[p] != 1 {
			t.Errorf("third crawl: %s requested %d times, want once more", p, site.hits[p])
		}
	}
	s, err := queue.JetStreamOf(q).Stream(ctx, queue.CrawlStream)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.CachedInfo().State.Msgs; n != 2*(pages+1) {
		t.Errorf("%s holds %d links after crawl 3, want those of crawls 2 and 3, %d", queue.CrawlStream, n, 2*(pages+1))
	}
}

// A fleet crawl started again sends each page's entity tag (If-None-Match)
// from the record of the worker's store, for pages served with an ETag and
// no Last-Modified: every page answered 304, its links followed from the
// stored copy, a changed page stored again with its new tag.
func TestFleetRecrawlETag(t *testing.T) {
	const pages = 12
	site := newModSite(t, pages)
	site.etags = true
	q := open(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := queue.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	seed := site.URL + "/p/0.html"
	for round := 1; round <= 2; round++ {
		if _, err := q.StartCrawl(ctx, queue.Crawl{Seeds: []string{seed}, Depth: 20}); err != nil {
			t.Fatal(err)
		}
		w := &queue.Worker{Queue: q, Client: client(t), Store: st, ID: "w0", Parallel: 4, PerHost: 4, Drain: true}
		if err := w.Run(ctx); err != nil {
			t.Fatal(err)
		}
		site.mu.Lock()
		for i := range pages {
			p := fmt.Sprintf("/p/%d.html", i)
			if want := round - 1; site.hits[p] != 1 || site.ims[p] != want {
				t.Errorf("crawl %d: %s requested %d times (%d with If-None-Match), want once (%d)", round, p, site.hits[p], site.ims[p], want)
			}
		}
		if round == 1 {
			site.mod[3] = site.mod[3].Add(time.Hour) // page 3 changes
		} else if site.notModified != pages-1 {
			t.Errorf("crawl 2: %d pages answered 304, want %d", site.notModified, pages-1)
		}
		clear(site.hits)
		clear(site.ims)
		site.mu.Unlock()
	}
	var three []queue.Record
	for _, r := range readResults(t, st.Dir()) {
		if r.URL == site.URL+"/p/3.html" {
			three = append(three, r)
		}
	}
	if want := fmt.Sprintf(`"3-%d"`, site.mod[3].Unix()); len(three) != 2 || three[0].ETag == "" || three[1].ETag != want {
		t.Errorf("the changed page's records: %+v, want two, the second tagged %s", three, want)
	}
}

// Commands starting a crawl at once start one: the others extend it, and
// its settings keep every command's seed. Four StartCrawl calls, each
// with a seed of its own, on a new queue make crawl 1 with the four
// seeds; four more after it ended make crawl 2 (not 3 or 5), with the
// four seeds again.
func TestStartCrawlAtOnce(t *testing.T) {
	site := newModSite(t, 4)
	q := open(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := queue.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{1, 2} {
		queued := make([]int, 4)
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for i := range queued {
			wg.Go(func() {
				queued[i], errs[i] = q.StartCrawl(ctx, queue.Crawl{Seeds: []string{fmt.Sprintf("%s/p/%d.html", site.URL, i)}})
			})
		}
		wg.Wait()
		total := 0
		for i, n := range queued {
			if errs[i] != nil {
				t.Fatalf("StartCrawl %d: %v", i, errs[i])
			}
			total += n
		}
		c, _, err := q.CurrentCrawl(ctx)
		if err != nil || c.Generation != want || total != 4 || len(c.Seeds) != 4 {
			t.Errorf("four StartCrawl at once: crawl %d (%v) with seeds %q, %d queued; want crawl %d, the 4 seeds, each queued", c.Generation, err, c.Seeds, total, want)
		}
		w := &queue.Worker{Queue: q, Client: client(t), Store: st, Drain: true}
		if err := w.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFleetCrawlKeepsSlots: a fleet crawl's pages of one host keep the
// host's slots from page to page (parked, as jobs' are) rather than take
// and free one for each page: two writes to the lease bucket a page (600
// here; 138 when only the pages fetched while the worker still took jobs
// kept theirs).
func TestFleetCrawlKeepsSlots(t *testing.T) {
	const pages = 300
	site := newModSite(t, pages)
	q := open(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := queue.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.StartCrawl(ctx, queue.Crawl{Seeds: []string{site.URL + "/p/0.html"}, Depth: 20}); err != nil {
		t.Fatal(err)
	}
	before, err := queue.Writes(ctx, q, "KV_"+queue.HostBucket)
	if err != nil {
		t.Fatal(err)
	}
	w := &queue.Worker{Queue: q, Client: client(t), Store: st, Parallel: 2, PerHost: 2, Drain: true}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := queue.Writes(ctx, q, "KV_"+queue.HostBucket)
	if err != nil {
		t.Fatal(err)
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	if site.hits["/p/299.html"] != 1 {
		t.Fatalf("the last page requested %d times, want once", site.hits["/p/299.html"])
	}
	t.Logf("%d lease writes for %d pages", after-before, pages)
	// Most pages come after the worker's loop taking jobs ended (no job
	// is queued): what they park is freed when due all the same.
	if after-before > pages/10 {
		t.Errorf("%d writes to the lease bucket for %d pages of one host, want at most %d", after-before, pages, pages/10)
	}
}
