package crawl

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"

	"github.com/rfc1738/fetch/fetch"
)

// The defects of issue 25's table, each a test that failed before the fix.

// Every page, menu and directory is requested once: its links come from
// the bytes fetched, whether the handler reads a listing from a body
// (gopher's menus, HTML) or lists a directory by a request of its own
// (FTP's): never a second request to list what was fetched.
func TestCrawlOneRequestPerURL(t *testing.T) {
	for _, listerOnly := range []bool{false, true} {
		s := gopherHole()
		s.listerOnly = listerOnly
		s.pages["http://web.example/"] = page{links: []string{"/a", "/sub/"}}
		s.pages["http://web.example/a"] = page{body: "a"}
		s.pages["http://web.example/sub/"] = page{links: []string{"../a", "b"}}
		s.pages["http://web.example/sub/b"] = page{body: "b"}
		got, st := visits(t, &Crawler{Client: s.client("gopher", "http"), Depth: 5, IgnoreRobots: true}, "gopher://hole.example/1/", "http://web.example/")
		if len(got) != 9 || st.Failed != 0 {
			t.Errorf("listerOnly %v: visited %q, stats %+v", listerOnly, got, st)
		}
		s.mu.Lock()
		fetched := slices.Clone(s.fetched)
		s.mu.Unlock()
		slices.Sort(fetched)
		if c := slices.Compact(slices.Clone(fetched)); len(c) != len(fetched) {
			t.Errorf("listerOnly %v: requests %q: some more than once", listerOnly, fetched)
		}
	}
}

// A page's links are the links of the bytes fetched: a server that
// answers once and then fails (issue 25's /once: 200, then 503) loses
// none of them.
func TestCrawlLinksFromTheBytesFetched(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	c := &fetch.Client{}
	c.Register("http", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		mu.Lock()
		calls[req.URL.String()]++
		n := calls[req.URL.String()]
		mu.Unlock()
		if n > 1 {
			return nil, fetch.Reply(fetch.Unavailable, 503, "once only")
		}
		body := "leaf"
		media := "text/plain"
		if req.URL.HTTP().Path == "/once" {
			body, media = `<a href="/x">x</a> <a href="/y">y</a>`, "text/html; charset=utf-8"
		}
		return &fetch.Resource{URL: req.URL, MediaType: media, Size: int64(len(body)), Body: io.NopCloser(strings.NewReader(body))}, nil
	}))
	got, st := visits(t, &Crawler{Client: c, Depth: 1, IgnoreRobots: true}, "http://web.example/once")
	want := []string{"0 http://web.example/once", "1 http://web.example/x", "1 http://web.example/y"}
	if !slices.Equal(got, want) || st.Failed != 0 {
		t.Errorf("visited %q, stats %+v; want %q", got, st, want)
	}
}

// A handler without List or ListBody (a HandlerFunc) serving HTML does
// not stop the crawl at its seed: the crawl reads the page's links itself.
// A menu such a handler serves, which the crawl cannot read, is counted
// and logged, not passed over in silence.
func TestCrawlHandlerFunc(t *testing.T) {
	s := gopherHole()
	s.pages["http://web.example/"] = page{links: []string{"/a"}}
	s.pages["http://web.example/a"] = page{body: "a"}
	c := &fetch.Client{}
	c.Register("http", fetch.HandlerFunc(s.Fetch))
	c.Register("gopher", fetch.HandlerFunc(s.Fetch))
	got, st := visits(t, &Crawler{Client: c, Depth: 2, IgnoreRobots: true}, "http://web.example/", "gopher://hole.example/1/")
	want := []string{"0 gopher://hole.example/1/", "0 http://web.example/", "1 http://web.example/a"}
	if !slices.Equal(got, want) || st.Unlisted != 1 {
		t.Errorf("visited %q, stats %+v; want %q and 1 unlisted", got, st, want)
	}
}

// Closing the body in Visit skips the resource: not a failure, not
// retried, counted as skipped (issue 25: a 20 MiB file downloaded three
// times, "1 fetched, 3 failed").
func TestCrawlVisitSkips(t *testing.T) {
	const size = 20 << 20
	var mu sync.Mutex
	calls := 0
	c := &fetch.Client{}
	c.Register("gopher", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		return &fetch.Resource{URL: req.URL, Size: size, MediaType: "application/octet-stream",
			Body: io.NopCloser(io.LimitReader(zeros{}, size))}, nil
	}))
	var read int64
	cr := &Crawler{Client: c, Retry: fetch.RetryPolicy{Attempts: 2, Backoff: time.Millisecond},
		Visit: func(ctx context.Context, p *Page) error {
			if p.Err != nil {
				t.Errorf("visited with %v", p.Err)
				return nil
			}
			n, _ := io.CopyN(io.Discard, p.Resource.Body, 1000)
			read += n
			return p.Resource.Body.Close() // not wanted
		}}
	st, err := cr.Run(t.Context(), "gopher://h.example/9/big")
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || st.Skipped != 1 || st.Failed != 0 || st.Fetched != 0 || st.Bytes != 1000 {
		t.Errorf("%d requests, stats %+v; want 1 request, 1 skipped of 1000 bytes read", calls, st)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// MaxBodySize skips what is larger, known from its size or found
// reading, without failure or retry.
func TestCrawlMaxBodySize(t *testing.T) {
	for _, known := range []bool{true, false} {
		s := &site{pages: map[string]page{"gopher://h.example/0/big": {body: strings.Repeat("x", 5000)}}}
		c := s.client("gopher")
		if !known {
			c.Replace("gopher", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
				res, err := s.Fetch(ctx, req)
				if err == nil {
					res.Size = -1
				}
				return res, err
			}))
		}
		var visitErr error
		cr := &Crawler{Client: c, MaxBodySize: 1000, Retry: fetch.RetryPolicy{Attempts: 2, Backoff: time.Millisecond},
			Visit: func(ctx context.Context, p *Page) error {
				_, visitErr = io.Copy(io.Discard, p.Resource.Body)
				return nil
			}}
		st, err := cr.Run(t.Context(), "gopher://h.example/0/big")
		if err != nil {
			t.Fatal(err)
		}
		if st.Skipped != 1 || st.Failed != 0 || s.count("gopher://h.example/0/big") != 1 {
			t.Errorf("size known %v: stats %+v, %d requests", known, st, s.count("gopher://h.example/0/big"))
		}
		if !known && visitErr != ErrTooLarge {
			t.Errorf("size unknown: Visit read %v, want ErrTooLarge", visitErr)
		}
	}
}

// Every request of a crawl to a host takes its turn under the rate:
// robots.txt, pages and retries (issue 25: robots.txt and the second
// listing ignored --rate; retries did too). synctest's clock: no time
// passes.
func TestCrawlEveryRequestPaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &site{pages: map[string]page{
			"http://web.example/robots.txt": {body: "User-agent: *\nAllow: /\n"},
			"http://web.example/":           {links: []string{"/a", "/b"}},
			"http://web.example/a":          {body: "a"},
			"http://web.example/b":          {err: fetch.Reply(fetch.Unavailable, 503, "later")},
		}}
		cr := &Crawler{Client: s.client("http"), Depth: 1, Parallel: 4, PerHost: 4, Rate: rate.Every(10 * time.Second),
			Retry: fetch.RetryPolicy{Attempts: 1, Backoff: time.Millisecond}}
		if _, err := cr.Run(t.Context(), "http://web.example/"); err != nil {
			t.Fatal(err)
		}
		ts := s.times["web.example"]
		if len(ts) != 5 { // robots.txt, /, /a, /b twice
			t.Fatalf("%d requests (%q), want 5", len(ts), s.fetched)
		}
		slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
		for i := 1; i < len(ts); i++ {
			if d := ts[i].Sub(ts[i-1]); d < 9900*time.Millisecond {
				t.Errorf("requests %d and %d of %q came %v apart, under the rate's 10s", i, i+1, s.fetched, d)
			}
		}
	})
}

// Links go to the frontier as the page streams in, not once it has been
// read: the crawl requests the first link of a page whose body waits for
// that request before it goes on (a page of a million links is never held
// whole).
func TestCrawlStreamsLinks(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	first := make(chan struct{})
	var once sync.Once
	c := &fetch.Client{}
	c.Register("http", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		if req.URL.HTTP().Path != "/" {
			once.Do(func() { close(first) })
			return &fetch.Resource{URL: req.URL, Body: fetch.NoBody}, nil
		}
		pr, pw := io.Pipe()
		go func() {
			fmt.Fprintf(pw, `<a href="/0">0</a>%s`, strings.Repeat(" ", 64<<10))
			select {
			case <-first:
			case <-ctx.Done():
				pw.CloseWithError(ctx.Err())
				return
			}
			for i := 1; i < 1000; i++ {
				fmt.Fprintf(pw, `<a href="/%d">%d</a>`, i, i)
			}
			pw.Close()
		}()
		return &fetch.Resource{URL: req.URL, MediaType: "text/html", Size: -1, Body: pr}, nil
	}))
	st, err := (&Crawler{Client: c, Depth: 1, IgnoreRobots: true, Parallel: 4, PerHost: 4}).Run(ctx, "http://web.example/")
	if err != nil || st.Fetched != 1001 || st.Failed != 0 {
		t.Errorf("Run = %+v, %v; want 1001 fetched (the links streamed)", st, err)
	}
}

// A link with dot segments or RFC 1808 parameters is fetched in its
// normal form, and cannot leave a prefix by them (issue 25: "/site/a;/../../X"
// was sent as written and got past the stay-below-the-seed rule).
func TestCrawlDotSegments(t *testing.T) {
	s := &site{pages: map[string]page{
		"http://web.example/site/":    {links: []string{"a;/../../X", "b/./c", "/site/b/../../orphan/1.html", "/orphan/1.html"}},
		"http://web.example/site/b/c": {body: "c"},
		"http://web.example/X":        {body: "secret"},
	}}
	got, st := visits(t, &Crawler{Client: s.client("http"), Depth: 2, IgnoreRobots: true,
		Scope: Scope{Prefixes: []string{"http://web.example/site/"}}}, "http://web.example/site/")
	want := []string{"0 http://web.example/site/", "1 http://web.example/site/b/c"}
	if !slices.Equal(got, want) || st.OutOfScope != 3 || s.count("http://web.example/X") != 0 {
		t.Errorf("visited %q, stats %+v; want %q", got, st, want)
	}
}
