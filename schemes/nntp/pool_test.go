package nntp

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestPoolSettings: the connection of one fetch serves the next unless
// the pool keeps none, or it idled longer than IdleTime. The clock is a
// synctest bubble's, on pipes: a connection idle exactly IdleTime is
// kept, one idle a moment longer is not.
func TestPoolSettings(t *testing.T) {
	for _, tt := range []struct {
		name      string
		maxIdle   int
		idleTime  time.Duration
		age       time.Duration // how long the test waits between the fetches
		wantConns int
	}{
		{"default keeps one", 0, 0, 0, 1},
		{"negative MaxIdle keeps none", -1, 0, 0, 2},
		{"expired after IdleTime", 0, time.Minute, time.Minute + time.Nanosecond, 2},
		{"young enough", 0, time.Minute, time.Minute, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := new(fetchtest.Pipes)
				f := newServer(t)
				addr := f.startPipes(p)
				h := newHandler(t, addr)
				h.MaxIdle, h.IdleTime = tt.maxIdle, tt.idleTime
				c := pipeClient(p, h)
				if _, err := getVia(t, c, "news:one@example.org"); err != nil {
					t.Fatal(err)
				}
				time.Sleep(tt.age)
				if _, err := getVia(t, c, "news:two@example.org"); err != nil {
					t.Fatal(err)
				}
				if n := f.connections(); n != tt.wantConns {
					t.Errorf("%d connections, want %d", n, tt.wantConns)
				}
			})
		})
	}
}

func TestConcurrentFetches(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	h := newHandler(t, addr)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			want, u := article1, "nntp://"+addr+"/local.test/1"
			if i%2 == 1 {
				want, u = article2, "news:two@example.org"
			}
			for range 5 {
				if _, got, err := get(t, h, u); err != nil || got != want {
					t.Errorf("Fetch(%s) = %q, %v", u, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n, max := h.pool().Len(), 2; n > max {
		t.Errorf("%d idle connections kept, want at most %d", n, max)
	}
}

// news: URLs name no host, yet count against the server they dial: with
// PerHost 1, a second fetch waits while the first body is open.
func TestNewsPerHost(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	h := newHandler(t, addr)
	if got := h.Address(&fetch.Request{URL: parse(t, "news:one@example.org")}); got != addr {
		t.Errorf("Address(news:) = %q, want the configured server %q", got, addr)
	}
	c := &fetch.Client{PerHost: 1}
	c.Register("news", h)
	c.Register("nntp", h)
	res, err := c.Fetch(context.Background(), "news:one@example.org")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	for _, u := range []string{"news:two@example.org", "nntp://" + addr + "/local.test/1"} {
		if _, err := c.Fetch(ctx, u); !errors.Is(err, fetch.Timeout) {
			t.Errorf("%s while a fetch from the same server is open: %v, want to wait (Timeout)", u, err)
		}
	}
	res.Body.Close()
	res, err = c.Fetch(context.Background(), "news:two@example.org")
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	res.Body.Close()
}
