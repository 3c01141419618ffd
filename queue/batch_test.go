package queue

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/url"
)

// batchSite serves "body of PATH" and counts the requests per path.
type batchSite struct {
	*httptest.Server
	mu    sync.Mutex
	count map[string]int
	// fail, if set, answers a request instead when it returns true.
	fail func(w http.ResponseWriter, r *http.Request, n int) bool
}

func newBatchSite(t *testing.T) *batchSite {
	s := &batchSite{count: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.count[r.URL.Path]++
		n := s.count[r.URL.Path]
		s.mu.Unlock()
		if s.fail != nil && s.fail(w, r, n) {
			return
		}
		fmt.Fprintf(w, "body of %s\n", r.URL.Path)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *batchSite) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count[path]
}

func (s *batchSite) urls(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s/b/%d", s.URL, i))
	}
	return out
}

func testClient(t *testing.T) *fetch.Client {
	c := &fetch.Client{Parser: url.Parser{Lenient: true}, PerHost: -1}
	schemes.Register(c)
	t.Cleanup(func() { c.Close() })
	return c
}

func seqOf(urls []string) func(func(Job) bool) {
	return func(yield func(Job) bool) {
		for _, u := range urls {
			if !yield(Job{URL: u}) {
				return
			}
		}
	}
}

func storeLines(t *testing.T, dir string) []Record {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, ResultsName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// lastSeq is the last sequence of stream name: how many messages were
// ever written to it (a key-value bucket's deletes included).
func lastSeq(t *testing.T, q *Queue, name string) uint64 {
	t.Helper()
	s, err := q.js.Stream(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.LastSeq
}

// jsWrites is the messages written to the queue's streams and buckets
// other than FETCH_JOBS: results, claims, leases, waits.
func jsWrites(t *testing.T, q *Queue) uint64 {
	var n uint64
	for _, s := range []string{ResultStream, "KV_" + ClaimBucket, "KV_" + HostBucket, "KV_" + WaitBucket} {
		n += lastSeq(t, q, s)
	}
	return n
}

// TestBatchWrites: 256 jobs of one host are 1 message at the default
// batch size (4 of 64 with --batch 64), and fetching them costs a few
// writes a batch, not a few a job: 4 a batch (a lease's create and
// delete, a claim, a result message) and one acknowledgement, and 2 for
// each lane a batch opens beside its own (a lease's create and delete; at
// most --per-host - 1 a batch here, where no job is retried). One job a
// message (Batch 1, before batches) costs four a job.
func TestBatchWrites(t *testing.T) {
	for _, tt := range []struct {
		batch, msgs int
		maxWrites   uint64
	}{
		{0, 1, 4 + 2*3},
		{64, 4, 4*4 + 2*3*4},
		{1, 256, 4 * 256},
	} {
		t.Run(fmt.Sprint("batch=", tt.batch), func(t *testing.T) {
			site := newBatchSite(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			q, err := Open(ctx, Options{StateDir: t.TempDir(), Batch: tt.batch})
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			urls := site.urls(256)
			n, dup, err := q.Enqueue(ctx, seqOf(urls))
			if err != nil || n != 256 || dup != 0 {
				t.Fatalf("Enqueue = %d, %d, %v; want 256, 0, nil", n, dup, err)
			}
			if got := lastSeq(t, q, JobStream); got != uint64(tt.msgs) {
				t.Errorf("%d messages in %s, want %d", got, JobStream, tt.msgs)
			}
			before := jsWrites(t, q)
			st, err := OpenStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			w := &Worker{Queue: q, Client: testClient(t), Store: st, Parallel: 4, PerHost: 4, Drain: true}
			if err := w.Run(ctx); err != nil {
				t.Fatal(err)
			}
			writes := jsWrites(t, q) - before
			t.Logf("%d writes for 256 jobs in %d messages", writes, tt.msgs)
			if writes > tt.maxWrites {
				t.Errorf("%d writes to the results, claims, leases and waits for 256 jobs, want at most %d", writes, tt.maxWrites)
			}
			if recs := storeLines(t, st.Dir()); len(recs) != 256 {
				t.Errorf("%d records, want 256", len(recs))
			}
			s, err := q.Stats(ctx)
			if err != nil || s.Done != 256 || s.Queued != 0 || s.InFlight != 0 {
				t.Errorf("Stats = %+v, %v; want 256 done, nothing queued", s, err)
			}
			var exported int
			if err := q.Export(ctx, ExportOptions{}, func(Record) error { exported++; return nil }); err != nil || exported != 256 {
				t.Errorf("Export gave %d records, %v; want 256", exported, err)
			}
		})
	}
}

// TestBatchRetriedInWorker: a transient failure of a job in a batch is
// tried again by the worker that holds the batch, after the retry
// policy's delay: every job is stored after 2 tries and the batch was
// delivered once.
func TestBatchRetriedInWorker(t *testing.T) {
	site := newBatchSite(t)
	site.fail = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n == 1 {
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return true
		}
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, err := Open(ctx, Options{StateDir: t.TempDir(), MaxDeliver: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	urls := site.urls(5)
	if _, _, err := q.Enqueue(ctx, seqOf(urls)); err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &Metrics{}
	w := &Worker{Queue: q, Client: testClient(t), Store: st, Parallel: 2, PerHost: 1, Drain: true, Metrics: m,
		Retry: fetch.RetryPolicy{Backoff: 10 * time.Millisecond}}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	recs := storeLines(t, st.Dir())
	if len(recs) != len(urls) {
		t.Fatalf("%d records, want %d", len(recs), len(urls))
	}
	for _, r := range recs {
		if r.Status != 0 || r.Attempts != 2 {
			t.Errorf("%s: status %d after %d tries (%s), want stored after 2", r.URL, r.Status, r.Attempts, r.Error)
		}
	}
	s := m.Snapshot()
	if s.Retried != 5 || s.HandedBack != 0 {
		t.Errorf("retried %d, handed back %d; want 5 retried in the worker, none handed back", s.Retried, s.HandedBack)
	}
	ci, err := q.consumer().Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Delivered.Consumer != 1 {
		t.Errorf("%d deliveries, want 1: the batch was not delivered again", ci.Delivered.Consumer)
	}
}

// TestRedeliveredBatchStoredOnce: a worker died with its batch half
// stored (3 of 6 jobs in its store, no acknowledgement): the batch
// delivered again to a worker of the same store fetches only the other
// 3, stores each job once, and publishes the 6 records.
func TestRedeliveredBatchStoredOnce(t *testing.T) {
	site := newBatchSite(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, err := Open(ctx, Options{StateDir: t.TempDir(), AckWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	urls := site.urls(6)
	if _, _, err := q.Enqueue(ctx, seqOf(urls)); err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The worker that dies: it takes the batch, commits it and stores
	// half of its jobs, then nothing more.
	b, err := q.consumer().Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	msg := <-b.Messages()
	if msg == nil {
		t.Fatal("no batch taken")
	}
	meta, err := msg.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	jobs, batch, _, err := decodeMessage(msg.Data())
	if err != nil || !batch || len(jobs) != 6 {
		t.Fatalf("the message: %d jobs, batch %v, %v; want a batch of 6", len(jobs), batch, err)
	}
	for _, j := range jobs[:3] {
		rec := Record{URL: j.URL, Kind: "file", Worker: "dead", Attempts: 1, Seq: meta.Sequence.Stream}
		if _, err := st.commit(Key(j.URL), &rec, nil); err != nil {
			t.Fatal(err)
		}
	}
	w := &Worker{Queue: q, Client: testClient(t), Store: st, Parallel: 2, PerHost: 2, Drain: true}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	recs := storeLines(t, st.Dir())
	if len(recs) != 6 {
		t.Errorf("%d records, want 6", len(recs))
	}
	for i, j := range jobs {
		want := 1
		if i < 3 {
			want = 0
		}
		if got := site.requests(j.URL[len(site.URL):]); got != want {
			t.Errorf("%s requested %d times, want %d", j.URL, got, want)
		}
	}
	var exported int
	if err := q.Export(ctx, ExportOptions{}, func(Record) error { exported++; return nil }); err != nil || exported != 6 {
		t.Errorf("Export gave %d records, %v; want 6", exported, err)
	}
}

// TestIdleConnsWithinPerHost: two workers, each taking a host's both
// slots (--per-host 2) in turn, keep no more connections open to the
// host than --per-host once they hold no slot: each closes its idle
// connections to a host when it frees its slot there. (Before, each kept
// its two, four in all, until they idled out.)
func TestIdleConnsWithinPerHost(t *testing.T) {
	var open, inflight atomic.Int32
	both := make(chan struct{})
	var once sync.Once
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Two requests at once, so that each worker opens two
		// connections.
		if inflight.Add(1) == 2 {
			once.Do(func() { close(both) })
		}
		select {
		case <-both:
		case <-time.After(5 * time.Second):
		}
		fmt.Fprintf(w, "body of %s\n", r.URL.Path)
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, err := Open(ctx, Options{StateDir: t.TempDir(), Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for i, name := range []string{"a", "b"} {
		inflight.Store(0)
		both = make(chan struct{})
		once = sync.Once{}
		if _, _, err := q.Enqueue(ctx, seqOf([]string{srv.URL + "/" + name + "1", srv.URL + "/" + name + "2"})); err != nil {
			t.Fatal(err)
		}
		st, err := OpenStore(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		c := &fetch.Client{Parser: url.Parser{Lenient: true}, PerHost: 2}
		schemes.Register(c)
		defer c.Close() // the worker's connections stay until the test ends, unless it closed them
		w := &Worker{Queue: q, Client: c, Store: st, ID: name, Parallel: 2, PerHost: 2, Drain: true}
		if err := w.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if got := len(storeLines(t, st.Dir())); got != 2 {
			t.Fatalf("worker %d stored %d records, want 2", i, got)
		}
	}
	// The server learns of a close a moment after the client makes it.
	deadline := time.Now().Add(10 * time.Second)
	for open.Load() > 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := open.Load(); n > 2 {
		t.Errorf("%d connections open to the host after both workers freed their slots, want at most --per-host 2", n)
	}
}

// TestBatchLanes: one host's batch of 20 jobs is fetched as many at once
// as --per-host allows, on the worker's free fetch slots (4 here), never
// more: lanes beside the batch's own, each with a lease of its own.
func TestBatchLanes(t *testing.T) {
	var active, peak atomic.Int32
	four := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := active.Add(1)
		defer active.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if n == 4 {
			once.Do(func() { close(four) })
		}
		select { // the first requests wait until four run at once
		case <-four:
		case <-time.After(5 * time.Second):
		}
		fmt.Fprintf(w, "body of %s\n", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, err := Open(ctx, Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var urls []string
	for i := range 20 {
		urls = append(urls, fmt.Sprintf("%s/l/%d", srv.URL, i))
	}
	if _, _, err := q.Enqueue(ctx, seqOf(urls)); err != nil {
		t.Fatal(err)
	}
	if got := lastSeq(t, q, JobStream); got != 1 {
		t.Fatalf("%d messages, want one batch", got)
	}
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &Worker{Queue: q, Client: testClient(t), Store: st, Parallel: 8, PerHost: 4, Drain: true}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got := len(storeLines(t, st.Dir())); got != 20 {
		t.Errorf("%d records, want 20", got)
	}
	if p := peak.Load(); p != 4 {
		t.Errorf("%d requests at once to the host, want --per-host 4", p)
	}
}

// TestLeaseWrites: a host's slot is kept for the host's next job or
// batch, not freed and taken again (a delete and a create each): the
// next job of the host waiting in the worker takes it (40 jobs one a
// message, --per-host 1: far fewer than 80 writes to the lease bucket),
// and a slot parked at a batch's end waits a moment for the host's next
// batch (see linger; 20 batches of 8 at --per-host 4: 30 writes
// without it).
func TestLeaseWrites(t *testing.T) {
	for _, tt := range []struct {
		name              string
		batch, jobs       int
		parallel, perHost int
		maxWrites         uint64
	}{
		{"next job", 1, 40, 4, 1, 20},
		{"next batch", 8, 160, 4, 4, 16},
	} {
		t.Run(tt.name, func(t *testing.T) {
			site := newBatchSite(t)
			q, ctx := openQueue(t, Options{Batch: tt.batch})
			if _, _, err := q.Enqueue(ctx, seqOf(site.urls(tt.jobs))); err != nil {
				t.Fatal(err)
			}
			before := lastSeq(t, q, "KV_"+HostBucket)
			st, err := OpenStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			w := &Worker{Queue: q, Client: testClient(t), Store: st, Parallel: tt.parallel, PerHost: tt.perHost, Drain: true}
			if err := w.Run(ctx); err != nil {
				t.Fatal(err)
			}
			if got := len(storeLines(t, st.Dir())); got != tt.jobs {
				t.Errorf("%d records, want %d", got, tt.jobs)
			}
			writes := lastSeq(t, q, "KV_"+HostBucket) - before
			t.Logf("%d lease writes for %d jobs", writes, tt.jobs)
			if writes > tt.maxWrites {
				t.Errorf("%d writes to the lease bucket for %d jobs of one host, want at most %d", writes, tt.jobs, tt.maxWrites)
			}
		})
	}
}
