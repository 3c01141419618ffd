package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/url"
	"golang.org/x/time/rate"
)

// seq yields the given URLs.
func seq(urls ...string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, u := range urls {
			if !yield(u) {
				return
			}
		}
	}
}

// A slow host must not hold back the others: with 4 workers and PerHost 1,
// gopher items that answer at once complete while slow HTTP pages wait.
func TestBatchSlowHostDoesNotHoldBackOthers(t *testing.T) {
	const nGopher = 20
	gopherDone := make(chan struct{})
	c := &Client{PerHost: -1}
	c.Register("http", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		select { // slow until every gopher item is done (or 10 s)
		case <-gopherDone:
		case <-time.After(10 * time.Second):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &Resource{Size: -1, Body: io.NopCloser(strings.NewReader("page"))}, nil
	}))
	c.Register("gopher", staticHandler("item"))

	var urls []string
	for i := range nGopher {
		if i < 8 {
			urls = append(urls, fmt.Sprintf("http://slow.example/%d", i))
		}
		urls = append(urls, fmt.Sprintf("gopher://fast.example/0/%d", i))
	}
	var mu sync.Mutex
	var order []string
	gophers := 0
	b := &Batch{Client: c, Parallel: 4, PerHost: 1}
	err := b.Run(context.Background(), seq(urls...), func(ctx context.Context, r *Result) error {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Input, r.Err)
			return nil
		}
		io.Copy(io.Discard, r.Resource.Body)
		mu.Lock()
		defer mu.Unlock()
		order = append(order, r.URL.Scheme)
		if r.URL.Scheme == "gopher" {
			if gophers++; gophers == nGopher {
				close(gopherDone)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Repeat([]string{"gopher"}, nGopher), slices.Repeat([]string{"http"}, 8)...)
	if !slices.Equal(order, want) {
		t.Errorf("order of completion:\n got %v\nwant %v", order, want)
	}
}

// The batch reads its iterator as it goes: never more than a bounded
// window ahead of the URLs finished, however long the sequence.
func TestBatchReadsAheadBounded(t *testing.T) {
	c := &Client{}
	c.Register("gopher", staticHandler("x"))
	const n = 20000
	var yielded, delivered, maxAhead atomic.Int64
	urls := func(yield func(string) bool) {
		for i := range n {
			if ahead := yielded.Load() - delivered.Load(); ahead > maxAhead.Load() {
				maxAhead.Store(ahead)
			}
			yielded.Add(1)
			if !yield(fmt.Sprintf("gopher://h%d.example/0/%d", i%50, i)) {
				return
			}
		}
	}
	b := &Batch{Client: c, Parallel: 16}
	err := b.Run(context.Background(), urls, func(ctx context.Context, r *Result) error {
		if r.Err != nil {
			t.Error(r.Err)
		}
		delivered.Add(1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if delivered.Load() != n {
		t.Errorf("delivered %d of %d", delivered.Load(), n)
	}
	if m := maxAhead.Load(); m > batchWindow+int64(b.Parallel)+1 {
		t.Errorf("read %d URLs ahead of those finished; the window is %d", m, batchWindow)
	}
}

// Equal URLs in flight are fetched once; the others share the outcome.
func TestBatchDedupe(t *testing.T) {
	for _, dup := range []bool{false, true} {
		t.Run(fmt.Sprintf("FetchDuplicates=%v", dup), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var calls atomic.Int64
				release := make(chan struct{})
				c := &Client{PerHost: -1}
				c.Register("gopher", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
					calls.Add(1)
					<-release
					return &Resource{Size: 1, Body: io.NopCloser(strings.NewReader("x"))}, nil
				}))
				var shared atomic.Int64
				var seen atomic.Int64
				b := &Batch{Client: c, Parallel: 8, PerHost: 8, FetchDuplicates: dup}
				// Four spellings of one URL (RFC 1738 equivalences).
				urls := seq("gopher://h.example/0/a", "GOPHER://H.EXAMPLE/0/a", "gopher://h.example:70/0/a", "gopher://h.example/0/%61")
				go func() {
					// Once all else waits, the duplicates have arrived.
					synctest.Wait()
					close(release)
				}()
				err := b.Run(context.Background(), urls, func(ctx context.Context, r *Result) error {
					if r.Err != nil {
						t.Error(r.Err)
					}
					if r.Shared {
						shared.Add(1)
					}
					seen.Add(1)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				wantCalls, wantShared := int64(1), int64(3)
				if dup {
					wantCalls, wantShared = 4, 0
				}
				if calls.Load() != wantCalls || shared.Load() != wantShared || seen.Load() != 4 {
					t.Errorf("fetched %d times, %d shared, %d delivered; want %d, %d, 4", calls.Load(), shared.Load(), seen.Load(), wantCalls, wantShared)
				}
			})
		})
	}
}

// Transient failures are retried by the policy; permanent ones, and those
// the callback marks with NoRetry, are not.
func TestBatchRetry(t *testing.T) {
	tests := []struct {
		name      string
		fails     []error // the handler's failures, in order, before it succeeds
		noRetry   bool    // the callback fails its first resource with NoRetry
		message   bool    // the request sends a message
		attempts  int
		wantCalls int
		wantKind  Kind // 0: success
	}{
		{"transient then success", []error{Errorf(Connect, "refused"), Errorf(Timeout, "slow")}, false, false, 3, 3, 0},
		{"more failures than attempts", []error{Errorf(Connect, "a"), Errorf(Connect, "b"), Errorf(Connect, "c")}, false, false, 2, 3, Connect},
		{"permanent", []error{Errorf(NotFound, "gone")}, false, false, 3, 1, NotFound},
		{"no policy", []error{Errorf(Connect, "refused")}, false, false, 0, 1, Connect},
		{"callback says no retry", nil, true, false, 3, 1, Incomplete},
		{"a message is sent once", []error{Errorf(Timeout, "slow relay")}, false, true, 3, 1, Timeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			c := &Client{}
			c.Register("ftp", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
				calls++
				if calls <= len(tt.fails) {
					return nil, tt.fails[calls-1]
				}
				return &Resource{Size: 2, Body: io.NopCloser(strings.NewReader("ok"))}, nil
			}))
			var retries int
			b := &Batch{Client: c, Retry: RetryPolicy{Attempts: tt.attempts, Backoff: time.Millisecond},
				OnRetry: func(r *Result, err error, wait time.Duration) { retries++ }}
			if tt.message {
				b.Request = func(r *Result) (*Request, error) {
					return &Request{URL: r.URL, Message: strings.NewReader("hello")}, nil
				}
			}
			var final []*Result
			err := b.Run(context.Background(), seq("ftp://h.example/f"), func(ctx context.Context, r *Result) error {
				if r.Resource != nil && tt.noRetry {
					return NoRetry(Errorf(Incomplete, "cut"))
				}
				final = append(final, &Result{Err: r.Err, Attempt: r.Attempt})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if calls != tt.wantCalls || retries != tt.wantCalls-1 {
				t.Errorf("handler called %d times, %d retries; want %d", calls, retries, tt.wantCalls)
			}
			if len(final) != 1 {
				t.Fatalf("delivered %d times, want once", len(final))
			}
			if got := final[0].Err; (tt.wantKind == 0) != (got == nil) || (got != nil && !errors.Is(got, tt.wantKind)) {
				t.Errorf("outcome %v, want kind %v", got, tt.wantKind)
			}
		})
	}
}

// A per-host rate spaces the requests to one host, not to all.
func TestBatchRate(t *testing.T) {
	c := &Client{PerHost: -1}
	var mu sync.Mutex
	starts := map[string][]time.Time{}
	c.Register("gopher", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		mu.Lock()
		starts[req.URL.Host] = append(starts[req.URL.Host], time.Now())
		mu.Unlock()
		return &Resource{Size: 0, Body: NoBody}, nil
	}))
	b := &Batch{Client: c, Parallel: 8, PerHost: 8, Rate: 10,
		HostRate: func(key string) rate.Limit {
			if key == "gopher://free.example:70" {
				return rate.Inf
			}
			return 0
		}}
	var urls []string
	for i := range 4 {
		urls = append(urls, fmt.Sprintf("gopher://slow.example/0/%d", i), fmt.Sprintf("gopher://free.example/0/%d", i))
	}
	if err := b.Run(context.Background(), seq(urls...), func(ctx context.Context, r *Result) error { return r.Err }); err != nil {
		t.Fatal(err)
	}
	gap := func(ts []time.Time) time.Duration {
		slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
		return ts[len(ts)-1].Sub(ts[0])
	}
	// Four requests at 10 a second, a burst of one: at least 300 ms from
	// first to last (a lower bound only: a loaded machine is slower).
	if g := gap(starts["slow.example"]); g < 290*time.Millisecond {
		t.Errorf("4 requests at 10/s spanned %v", g)
	}
	if len(starts["free.example"]) != 4 {
		t.Errorf("free host: %d requests", len(starts["free.example"]))
	}
}

// Cancelling the context ends the batch: transfers in flight see it, the
// rest are not started, and Run returns the cause.
func TestBatchCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{}, 100)
	var calls atomic.Int64
	c := &Client{PerHost: -1}
	c.Register("gopher", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		calls.Add(1)
		started <- struct{}{}
		<-ctx.Done()
		return nil, Wrap(Timeout, ctx.Err())
	}))
	go func() { <-started; <-started; cancel() }()
	var failed atomic.Int64
	b := &Batch{Client: c, Parallel: 2, PerHost: 2, Retry: RetryPolicy{Attempts: 5}}
	urls := func(yield func(string) bool) {
		for i := 0; ; i++ {
			if !yield(fmt.Sprintf("gopher://h.example/0/%d", i)) {
				return
			}
		}
	}
	err := b.Run(ctx, urls, func(ctx context.Context, r *Result) error {
		if !errors.Is(r.Err, context.Canceled) {
			t.Errorf("%s: %v, want a cancellation", r.Input, r.Err)
		}
		failed.Add(1)
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if calls.Load() != 2 || failed.Load() != 2 {
		t.Errorf("%d fetched, %d delivered; want the 2 in flight", calls.Load(), failed.Load())
	}
}

// A callback's error for a final failure stops the batch.
func TestBatchCallbackStops(t *testing.T) {
	c := &Client{}
	c.Register("gopher", staticHandler("x"))
	stop := errors.New("enough")
	var read atomic.Int64
	urls := func(yield func(string) bool) {
		for i := 0; i < 100000; i++ {
			read.Add(1)
			u := fmt.Sprintf("gopher://h.example/0/%d", i)
			if i == 3 {
				u = "gopher://h.example:bad/"
			}
			if !yield(u) {
				return
			}
		}
	}
	b := &Batch{Client: c}
	err := b.Run(context.Background(), urls, func(ctx context.Context, r *Result) error {
		switch {
		case r.Err == nil:
		case errors.Is(r.Err, context.Canceled): // in flight at the stop
		case errors.Is(r.Err, Malformed):
			return stop
		default:
			t.Errorf("%s: %v, want Malformed", r.Input, r.Err)
		}
		return nil
	})
	if err != stop {
		t.Errorf("Run = %v, want the callback's error", err)
	}
	if n := read.Load(); n > batchWindow+100 {
		t.Errorf("read %d URLs after the stop", n)
	}
}

// A batch parses leniently unless Strict: a space in an http path is
// accepted by the lenient parser and refused by the strict one.
func TestBatchLenient(t *testing.T) {
	c := &Client{}
	c.Register("http", staticHandler("x"))
	for _, strict := range []bool{false, true} {
		var got error
		b := &Batch{Client: c, Strict: strict}
		b.Run(context.Background(), seq("http://h.example/a b"), func(ctx context.Context, r *Result) error {
			got = r.Err
			return nil
		})
		if strict != (got != nil) {
			t.Errorf("Strict=%v: %v", strict, got)
		}
	}
	if _, err := (url.Parser{}).Parse("http://h.example/a b"); err == nil {
		t.Error("the strict parser accepts a space; the test proves nothing")
	}
}

// URLs start in the order read but for those held back by their host: one
// worker fetches them exactly in order, whatever their hosts.
func TestBatchOrder(t *testing.T) {
	c := &Client{}
	c.Register("gopher", staticHandler("x"))
	var urls []string
	for i := range 30 {
		urls = append(urls, fmt.Sprintf("gopher://h%d.example/0/%d", i%3, i))
		if i == 10 {
			urls = append(urls, "gopher://h.example:bad/")
		}
	}
	var got []string
	b := &Batch{Client: c, Parallel: 1}
	if err := b.Run(context.Background(), seq(urls...), func(ctx context.Context, r *Result) error {
		got = append(got, r.Input)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, urls) {
		t.Errorf("with one worker, order\n got %v\nwant %v", got, urls)
	}
}

// goroutineID returns the id of the calling goroutine, from the first line
// of its stack trace ("goroutine 123 [running]:").
func goroutineID() string {
	var b [64]byte
	f := strings.Fields(string(b[:runtime.Stack(b[:], false)]))
	return f[1]
}

// A batch of many URLs runs them on at most Parallel goroutines, each
// taking the next URL when done, not on a goroutine a URL.
func TestBatchReusesWorkers(t *testing.T) {
	c := &Client{PerHost: -1}
	c.Register("gopher", staticHandler("item"))
	var urls []string
	for i := range 200 {
		urls = append(urls, fmt.Sprintf("gopher://h%d.example/0/%d", i%7, i))
	}
	var mu sync.Mutex
	ids := map[string]bool{}
	b := &Batch{Client: c, Parallel: 4, PerHost: 4}
	err := b.Run(context.Background(), seq(urls...), func(ctx context.Context, r *Result) error {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Input, r.Err)
		}
		mu.Lock()
		ids[goroutineID()] = true
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) > 4 {
		t.Errorf("200 URLs ran on %d goroutines, want at most Parallel (4)", len(ids))
	}
}

// A retry waits for its host's turn under the rate, as any request does:
// at 1 request every 10 s, three attempts of one URL span at least 20 s
// whatever the backoff (issue 25: they came within 2.7 s at --rate 0.2).
// The clock is synctest's, so the test takes no time.
func TestBatchRetryKeepsRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var starts []time.Time
		c := &Client{}
		c.Register("gopher", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
			starts = append(starts, time.Now())
			return nil, Errorf(Unavailable, "try later")
		}))
		b := &Batch{Client: c, Rate: rate.Every(10 * time.Second),
			Retry: RetryPolicy{Attempts: 2, Backoff: time.Millisecond}}
		err := b.Run(t.Context(), seq("gopher://h.example/0/once"), func(ctx context.Context, r *Result) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(starts) != 3 {
			t.Fatalf("%d attempts, want 3", len(starts))
		}
		for i := 1; i < len(starts); i++ {
			if d := starts[i].Sub(starts[i-1]); d < 9900*time.Millisecond {
				t.Errorf("attempt %d came %v after the one before, under the rate's 10s", i+1, d)
			}
		}
	})
}

// A Limiter given by the caller paces the batch's requests and the
// caller's own to the host from one budget.
func TestBatchSharedLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var starts []time.Time
		c := &Client{}
		c.Register("gopher", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
			starts = append(starts, time.Now())
			return &Resource{Body: NoBody}, nil
		}))
		lim := rate.NewLimiter(rate.Every(5*time.Second), 1)
		lim.Wait(t.Context()) // the caller's own request took the first turn
		b := &Batch{Client: c, PerHost: 1, Limiter: func(key string) *rate.Limiter {
			if key != "gopher://h.example:70" {
				t.Errorf("Limiter(%q)", key)
			}
			return lim
		}}
		t0 := time.Now()
		err := b.Run(t.Context(), seq("gopher://h.example/0/a", "gopher://h.example/0/b"), func(ctx context.Context, r *Result) error { return r.Err })
		if err != nil {
			t.Fatal(err)
		}
		if len(starts) != 2 || starts[0].Sub(t0) < 4900*time.Millisecond || starts[1].Sub(starts[0]) < 4900*time.Millisecond {
			t.Errorf("requests at %v after the caller's, want 5s apart from it and each other", starts)
		}
	})
}
