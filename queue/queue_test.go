package queue_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/queue"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/schemes/nntp"
	"github.com/rfc1738/fetch/url"
)

func TestMain(m *testing.M) { fetchtest.Main(m) }

// site is an in-process HTTP server whose every path answers with a body
// naming the path; it records the most requests it had in progress at once.
type site struct {
	*httptest.Server
	delay    time.Duration
	active   atomic.Int32
	peak     atomic.Int32
	requests atomic.Int32
}

func newSite(t *testing.T, delay time.Duration) *site {
	s := &site{delay: delay}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.active.Add(1)
		defer s.active.Add(-1)
		for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
		}
		s.requests.Add(1)
		time.Sleep(s.delay)
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "body of %s\n", r.URL.Path)
	}))
	t.Cleanup(s.Close)
	return s
}

func client(t *testing.T) *fetch.Client {
	c := &fetch.Client{Parser: url.Parser{Lenient: true}, PerHost: -1}
	schemes.Register(c)
	t.Cleanup(func() { c.Close() })
	return c
}

func open(t *testing.T, state string) *queue.Queue {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, err := queue.Open(ctx, queue.Options{StateDir: state, AckWait: 5 * time.Second, LeaseTTL: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

func jobs(urls []string) func(func(queue.Job) bool) {
	return func(yield func(queue.Job) bool) {
		for _, u := range urls {
			if !yield(queue.Job{URL: u}) {
				return
			}
		}
	}
}

func readResults(t *testing.T, dir string) []queue.Record {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, queue.ResultsName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []queue.Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r queue.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("results.jsonl line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

// drain runs n workers over q until the queue is empty.
func drain(t *testing.T, q *queue.Queue, st *queue.Store, n, perHost int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		w := &queue.Worker{Queue: q, Client: client(t), Store: st, ID: fmt.Sprintf("w%d", i), Parallel: 4, PerHost: perHost, Drain: true}
		wg.Go(func() { errs[i] = w.Run(ctx) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestDrainStoresEachJobOnce(t *testing.T) {
	s := newSite(t, 0)
	state, store := t.TempDir(), t.TempDir()
	q := open(t, state)
	var urls []string
	for i := range 300 {
		urls = append(urls, fmt.Sprintf("%s/doc/%d", s.URL, i))
	}
	urls = append(urls, s.URL+"/missing")
	ctx := context.Background()
	n, dup, err := q.Enqueue(ctx, jobs(append(urls, urls[:10]...)))
	if err != nil || n != len(urls) || dup != 10 {
		t.Fatalf("Enqueue = %d, %d, %v; want %d, 10, nil", n, dup, err, len(urls))
	}
	st, err := queue.OpenStore(store)
	if err != nil {
		t.Fatal(err)
	}
	drain(t, q, st, 3, 2)

	recs := readResults(t, store)
	if len(recs) != len(urls) {
		t.Fatalf("%d results, want %d", len(recs), len(urls))
	}
	seen := map[string]bool{}
	for _, r := range recs {
		if seen[r.URL] {
			t.Errorf("%s stored twice", r.URL)
		}
		seen[r.URL] = true
		if r.URL == s.URL+"/missing" {
			if r.Status != 7 && r.Status != 1 || r.Size != 0 {
				t.Errorf("missing: %+v, want a failure", r)
			}
			continue
		}
		body, err := os.ReadFile(filepath.Join(store, queue.Key(r.URL)))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(body)
		if r.Status != 0 || r.SHA256 != hex.EncodeToString(sum[:]) || r.Size != int64(len(body)) {
			t.Errorf("%+v does not describe the body stored (%d bytes)", r, len(body))
		}
	}
	stats, err := q.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := queue.Stats{Done: uint64(len(urls) - 1), Failed: 1}
	if stats != want {
		t.Errorf("Stats = %+v, want %+v", stats, want)
	}
}

func TestPerHostAcrossWorkers(t *testing.T) {
	a, b := newSite(t, 30*time.Millisecond), newSite(t, 30*time.Millisecond)
	q := open(t, t.TempDir())
	var urls []string
	for i := range 40 {
		urls = append(urls, fmt.Sprintf("%s/a/%d", a.URL, i), fmt.Sprintf("%s/b/%d", b.URL, i))
	}
	if _, _, err := q.Enqueue(context.Background(), jobs(urls)); err != nil {
		t.Fatal(err)
	}
	st, err := queue.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	drain(t, q, st, 3, 1)
	if got := len(readResults(t, st.Dir())); got != len(urls) {
		t.Errorf("%d results, want %d", got, len(urls))
	}
	for name, s := range map[string]*site{"a": a, "b": b} {
		if p := s.peak.Load(); p != 1 {
			t.Errorf("site %s saw %d requests at once, want 1 (per-host 1 across 3 workers)", name, p)
		}
	}
}

// A URL enqueued again while its job is pending is folded into it; enqueued
// again after it was done, it is fetched again (a recrawl), conditionally
// on the validators of its record (the modification time as
// If-Modified-Since, the entity tag as If-None-Match), by a worker of
// another Store on the same directory (another process): an unchanged
// resource is recorded "not modified", its validators and body kept.
func TestRecrawl(t *testing.T) {
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		mod    time.Time // served as Last-Modified unless zero
		etag   string    // served as ETag unless ""
		header string    // the condition the recrawl must send
	}{
		{"modified", mod, "", "If-Modified-Since"},
		{"etag", time.Time{}, `"v1"`, "If-None-Match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var requests, conditional atomic.Int32
			site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				if r.Header.Get(tc.header) != "" {
					conditional.Add(1)
				}
				if tc.etag != "" {
					w.Header().Set("ETag", tc.etag)
				}
				http.ServeContent(w, r, "page.txt", tc.mod, strings.NewReader("the page\n"))
			}))
			defer site.Close()
			dir := t.TempDir()
			q := open(t, t.TempDir())
			u := site.URL + "/page"
			ctx := context.Background()
			for i := range 2 {
				n, dup, err := q.Enqueue(ctx, jobs([]string{u, u}))
				if err != nil || n != 1 || dup != 1 {
					t.Fatalf("Enqueue #%d = %d, %d, %v; want 1 queued, 1 folded into the pending job", i, n, dup, err)
				}
				st, err := queue.OpenStore(dir)
				if err != nil {
					t.Fatal(err)
				}
				drain(t, q, st, 1, 1)
			}
			recs := readResults(t, dir)
			if len(recs) != 2 || requests.Load() != 2 || conditional.Load() != 1 {
				t.Fatalf("%d records, %d requests (%d with %s); want 2, 2, 1: %+v", len(recs), requests.Load(), conditional.Load(), tc.header, recs)
			}
			for i, r := range recs {
				if (r.ModTime == nil) != tc.mod.IsZero() || r.ModTime != nil && !r.ModTime.Equal(mod) || r.ETag != tc.etag {
					t.Errorf("record %d: modtime %v, etag %q; want %v, %q", i, r.ModTime, r.ETag, tc.mod, tc.etag)
				}
			}
			if r := recs[0]; r.Status != 0 || r.Seq == 0 {
				t.Errorf("first crawl: %+v", r)
			}
			if r := recs[1]; r.Status != 0 || r.Kind != "not modified" || r.Seq == recs[0].Seq {
				t.Errorf("recrawl: %+v, want not modified", r)
			}
			if body, err := os.ReadFile(filepath.Join(dir, queue.Key(u))); err != nil || string(body) != "the page\n" {
				t.Errorf("body after the recrawl: %q, %v", body, err)
			}
			stats, err := q.Stats(ctx)
			if want := (queue.Stats{Done: 2}); err != nil || stats != want {
				t.Errorf("Stats = %+v, %v; want %+v", stats, err, want)
			}
		})
	}
}

func TestEmbeddedServerSharedByProcesses(t *testing.T) {
	state := t.TempDir()
	q1 := open(t, state)
	q2 := open(t, state) // finds the server q1 runs
	if _, _, err := q1.Enqueue(context.Background(), jobs([]string{"http://127.0.0.1:1/x"})); err != nil {
		t.Fatal(err)
	}
	s, err := q2.Stats(context.Background())
	if err != nil || s.Queued != 1 {
		t.Fatalf("Stats via the second opener = %+v, %v; want 1 queued", s, err)
	}
	b, err := os.ReadFile(filepath.Join(state, "server.url"))
	if err != nil || !slices.Contains([]string{"nats://127.0.0.1"}, string(b[:16])) {
		t.Errorf("server.url = %q, %v", b, err)
	}
}

// When the process running the embedded server exits, one that was
// connected to it serves the same state on the same port, and nothing
// queued is lost.
func TestEmbeddedServerTakenOver(t *testing.T) {
	state := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	host, err := queue.Open(ctx, queue.Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	other := open(t, state)
	// Two hosts: a batch of one host's jobs counts once in Queued.
	if _, _, err := other.Enqueue(ctx, jobs([]string{"http://127.0.0.1:1/a", "http://127.0.0.1:2/b"})); err != nil {
		t.Fatal(err)
	}
	host.Close()
	// A request sent while the connection was down may go unanswered:
	// each try has its own short deadline.
	for {
		try, cancelTry := context.WithTimeout(ctx, 2*time.Second)
		s, err := other.Stats(try)
		cancelTry()
		if err == nil {
			if s.Queued != 2 {
				t.Fatalf("after the takeover, Stats = %+v, want 2 queued", s)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no takeover: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestKeyIsTheNormalizedURL(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"HTTP://Example.ORG:80/a", "http://example.org/a"},
		{"gopher://h", "gopher://h/1"},
		{"ftp://h/%7Euser/f", "ftp://h/~user/f"},
	} {
		if queue.Key(c.a) != queue.Key(c.b) {
			t.Errorf("Key(%q) != Key(%q): the same URL would be two jobs", c.a, c.b)
		}
	}
	if queue.Key("http://h/a") == queue.Key("http://h/b") {
		t.Error("two URLs share a key")
	}
}

// The lease of a news: job, whose URL names no host, is taken on the news
// server its handler dials.
func TestNewsJobLeasesItsServer(t *testing.T) {
	c := &fetch.Client{Parser: url.Parser{Lenient: true}}
	schemes.Register(c)
	news := &nntp.Handler{Server: "news.example:1119"}
	for _, s := range []string{"news", "snews", "nntp", "nntps"} {
		c.Replace(s, news)
	}
	t.Cleanup(func() { c.Close() })
	u, err := c.Parser.Parse("news:comp.infosystems")
	if err != nil {
		t.Fatal(err)
	}
	if got := queue.LeaseAddress(c, u); got != "news.example:1119" {
		t.Errorf("lease address of %s = %q, want the news server", u, got)
	}
}

// Jobs that are malformed or too large (a host of 2,100 characters, a URL
// beyond the bound, a message that is no JSON) are terminated or recorded
// as failed; the worker goes on with the rest and never stops for them.
func TestOversizedJobsNeverFatal(t *testing.T) {
	s := newSite(t, 0)
	q := open(t, t.TempDir())
	longHost := "http://" + strings.Repeat("h", 2100) + ".example/x"
	longURL := s.URL + "/" + strings.Repeat("p", 20<<10)
	good := s.URL + "/good"
	if _, _, err := q.Enqueue(context.Background(), jobs([]string{longHost, longURL, good})); err != nil {
		t.Fatal(err)
	}
	st, err := queue.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	drain(t, q, st, 1, 2)
	recs := readResults(t, st.Dir())
	byURL := map[string]queue.Record{}
	for _, r := range recs {
		byURL[r.URL] = r
	}
	if r, ok := byURL[good]; !ok || r.Status != 0 {
		t.Errorf("the good job: %+v, %v", r, ok)
	}
	if r, ok := byURL[longHost]; !ok || r.Status != 1 || r.Kind != "malformed URL" {
		t.Errorf("the job with a 2,100-character host: status %d, kind %q, %v; want a malformed failure", r.Status, r.Kind, ok)
	}
	if _, ok := byURL[longURL]; ok || len(recs) != 2 {
		t.Errorf("%d records; the oversized URL should be terminated unrecorded", len(recs))
	}
	stats, err := q.Stats(context.Background())
	if err != nil || stats.Queued != 0 || stats.InFlight != 0 {
		t.Errorf("Stats = %+v, %v: jobs left", stats, err)
	}
}

// The embedded server refuses a client without the credential kept in
// the state directory, which only its owner can read.
func TestEmbeddedServerRequiresToken(t *testing.T) {
	state := t.TempDir()
	open(t, state)
	u, err := os.ReadFile(filepath.Join(state, "server.url"))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(state, "server.token"))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("server.token has mode %v, want 0600", fi.Mode().Perm())
	}
	tok, err := os.ReadFile(filepath.Join(state, "server.token"))
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSpace(string(u))
	if nc, err := nats.Connect(addr, nats.MaxReconnects(0)); err == nil {
		nc.Close()
		t.Errorf("a client without the token connected to %s", addr)
	}
	nc, err := nats.Connect(addr, nats.Token(strings.TrimSpace(string(tok))))
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	nc.Close()
}

// --listen's address is where the embedded server listens; its port is
// kept for the next process that serves the directory.
func TestEmbeddedServerListen(t *testing.T) {
	state := t.TempDir()
	ctx := context.Background()
	q, err := queue.Open(ctx, queue.Options{StateDir: state, Listen: "127.0.0.2:0"})
	if err != nil {
		t.Skipf("no 127.0.0.2 here: %v", err)
	}
	u, _ := os.ReadFile(filepath.Join(state, "server.url"))
	q.Close()
	if !strings.HasPrefix(string(u), "nats://127.0.0.2:") {
		t.Fatalf("server.url = %q, want 127.0.0.2", u)
	}
	q, err = queue.Open(ctx, queue.Options{StateDir: state, Listen: "127.0.0.2:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	again, _ := os.ReadFile(filepath.Join(state, "server.url"))
	if string(again) != string(u) {
		t.Errorf("the second server listens at %q, the first at %q: the port is not kept", again, u)
	}
}

// A failure of the queue is no fetch attempt. With the results stream gone
// for a while, a worker holds each job it stored and publishes the result
// once the stream is back; handing the job back instead would spend its
// deliveries (two here) and leave it in the stream, undelivered for good,
// with no result published.
func TestResultsStreamAwaySpendsNoDelivery(t *testing.T) {
	s := newSite(t, 0)
	state, store := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := queue.Options{StateDir: state, AckWait: 5 * time.Second, LeaseTTL: 3 * time.Second, MaxDeliver: 2}
	q, err := queue.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	urls := []string{s.URL + "/a", s.URL + "/b", s.URL + "/c"}
	if _, _, err := q.Enqueue(ctx, jobs(urls)); err != nil {
		t.Fatal(err)
	}
	if err := queue.JetStreamOf(q).DeleteStream(ctx, queue.ResultStream); err != nil {
		t.Fatal(err)
	}
	st, err := queue.OpenStore(store)
	if err != nil {
		t.Fatal(err)
	}
	var failures atomic.Int32
	w := &queue.Worker{Queue: q, Client: client(t), Store: st, Parallel: 4, Drain: true,
		Logf: func(format string, args ...any) {
			if strings.HasPrefix(format, "publishing the result") {
				failures.Add(1)
			}
		}}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	// Three failed publications a job: more than its deliveries.
	for failures.Load() < int32(3*len(urls)) {
		select {
		case err := <-done:
			t.Fatalf("the worker stopped (%v) while the results stream was away", err)
		case <-ctx.Done():
			t.Fatal("no publication of a result was tried")
		case <-time.After(20 * time.Millisecond):
		}
	}
	// Opening the queue again makes the missing stream.
	q2, err := queue.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q2.Close() })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := s.requests.Load(); got != int32(len(urls)) {
		t.Errorf("%d requests, want %d: a job was fetched again", got, len(urls))
	}
	stats, err := q.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (queue.Stats{Done: uint64(len(urls))}); stats != want {
		t.Errorf("Stats = %+v, want %+v", stats, want)
	}
}
