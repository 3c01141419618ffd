package nntp

import (
	"sync"
	"testing"
	"time"
)

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
		{"expired after IdleTime", 0, time.Nanosecond, time.Millisecond, 2},
		{"young enough", 0, time.Minute, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newServer(t)
			addr := f.start(nil)
			h := newHandler(t, addr)
			h.MaxIdle, h.IdleTime = tt.maxIdle, tt.idleTime
			if _, _, err := get(t, h, "news:one@example.org"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(tt.age)
			if _, _, err := get(t, h, "news:two@example.org"); err != nil {
				t.Fatal(err)
			}
			if n := f.connections(); n != tt.wantConns {
				t.Errorf("%d connections, want %d", n, tt.wantConns)
			}
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
