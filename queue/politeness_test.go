package queue_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/queue"
)

// A slow host holds no worker slot that other hosts' jobs could use: a
// host that answers nothing (until the test lets it) has 20 jobs queued
// before 300 jobs of ten fast hosts; with --per-host 2 and --parallel 8,
// the fast hosts' jobs are all done while it still holds back its two
// requests. (Before, jobs waiting for the slow host's slots held fetch
// slots, and on their last delivery held them for good: the fast jobs
// starved.)
func TestSlowHostHoldsNoSlot(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	var slowActive, slowPeak atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := slowActive.Add(1)
		defer slowActive.Add(-1)
		for p := slowPeak.Load(); n > p && !slowPeak.CompareAndSwap(p, n); p = slowPeak.Load() {
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		fmt.Fprintf(w, "body of %s\n", r.URL.Path)
	}))
	defer slow.Close()
	defer free()
	var urls []string
	for i := range 20 {
		urls = append(urls, fmt.Sprintf("%s/slow/%d", slow.URL, i))
	}
	fast := map[string]bool{}
	for range 10 {
		s := newSite(t, 0)
		for i := range 30 {
			u := fmt.Sprintf("%s/fast/%d", s.URL, i)
			urls = append(urls, u)
			fast[u] = true
		}
	}
	q := open(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if n, _, err := q.Enqueue(ctx, jobs(urls)); err != nil || n != len(urls) {
		t.Fatalf("Enqueue = %d, %v", n, err)
	}
	st, err := queue.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A generous bound: the fast jobs take a second or two alone.
	var mu sync.Mutex
	fastDone, slowDone := 0, 0
	timedOut, atTimeout := false, 0
	timer := time.AfterFunc(45*time.Second, func() {
		mu.Lock()
		timedOut, atTimeout = true, fastDone
		mu.Unlock()
		free()
	})
	defer timer.Stop()
	w := &queue.Worker{Queue: q, Client: client(t), Store: st, Parallel: 8, PerHost: 2, Drain: true,
		OnResult: func(r queue.Record) {
			mu.Lock()
			defer mu.Unlock()
			if r.Status != 0 {
				t.Errorf("%s: status %d (%s)", r.URL, r.Status, r.Error)
			}
			if !fast[r.URL] {
				slowDone++
				return
			}
			if fastDone++; fastDone == len(fast) {
				free()
			}
		}}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	timer.Stop()
	mu.Lock()
	defer mu.Unlock()
	if timedOut {
		t.Errorf("the fast hosts' jobs were not done within 45 s while the slow host held two requests: %d of %d", atTimeout, len(fast))
	}
	if fastDone != len(fast) || slowDone != 20 {
		t.Fatalf("%d fast and %d slow jobs done, want %d and 20", fastDone, slowDone, len(fast))
	}
	if p := slowPeak.Load(); p > 2 {
		t.Errorf("%d requests at once to the slow host, want at most --per-host 2", p)
	}
}

// Waiting for a host slot is no try at a job: with MaxDeliver 2, jobs
// whose first request fails with a 503 after 1.2 s, each waiting behind
// the others' for the one slot to their host and handed back to the queue
// meanwhile, are each tried twice and stored.
func TestWaitingIsNoDelivery(t *testing.T) {
	var mu sync.Mutex
	tried := map[string]bool{}
	var peak, active atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := active.Add(1)
		defer active.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		mu.Lock()
		first := !tried[r.URL.Path]
		tried[r.URL.Path] = true
		mu.Unlock()
		if first {
			// Longer than a job waited for a slot before it was handed
			// back (counting a delivery) before waits were not tries.
			time.Sleep(1200 * time.Millisecond)
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, "body of %s\n", r.URL.Path)
	}))
	defer s.Close()
	var urls []string
	for i := range 5 {
		urls = append(urls, fmt.Sprintf("%s/w/%d", s.URL, i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// One job a message: a batch's jobs wait for no slot of their own
	// (TestBatchRetriedInWorker is this test's batch).
	q, err := queue.Open(ctx, queue.Options{StateDir: t.TempDir(), AckWait: 5 * time.Second, LeaseTTL: 3 * time.Second, MaxDeliver: 2, Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if _, _, err := q.Enqueue(ctx, jobs(urls)); err != nil {
		t.Fatal(err)
	}
	st, err := queue.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &queue.Metrics{}
	w := &queue.Worker{Queue: q, Client: client(t), Store: st, Parallel: 2, PerHost: 1, Drain: true, Metrics: m}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	recs := readResults(t, st.Dir())
	if len(recs) != len(urls) {
		t.Fatalf("%d records, want %d", len(recs), len(urls))
	}
	most := 0
	for _, r := range recs {
		if r.Status != 0 || r.Attempts != 2 {
			t.Errorf("%s: status %d after %d tries (%s), want stored after 2", r.URL, r.Status, r.Attempts, r.Error)
		}
		most = max(most, r.Waits)
	}
	if most < 2 {
		t.Errorf("the job handed back most often was handed back %d times: the test did not make jobs wait", most)
	}
	if p := peak.Load(); p > 1 {
		t.Errorf("%d requests at once, want at most --per-host 1", p)
	}
	t.Logf("handed back %d times in all, one job %d times", m.Snapshot().HandedBack, most)
}
