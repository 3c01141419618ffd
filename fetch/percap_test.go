package fetch

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// capHandler records the connection cap each request it serves carries.
type capHandler struct {
	mu   sync.Mutex
	caps []int
}

func (h *capHandler) Fetch(ctx context.Context, req *Request) (*Resource, error) {
	h.mu.Lock()
	h.caps = append(h.caps, req.MaxConnsPerHost())
	h.mu.Unlock()
	return &Resource{Size: -1, Body: io.NopCloser(strings.NewReader(""))}, nil
}

// TestRequestMaxConnsPerHost: a handler learns the Client's per-host cap
// from each request, whatever PerHost was when it was registered: the
// cap is the Client's, not a copy of it in the handler.
func TestRequestMaxConnsPerHost(t *testing.T) {
	tests := []struct {
		perHost int
		want    int
	}{
		{0, 2},
		{1, 1},
		{3, 3},
		{-1, 0}, // no cap
	}
	for _, tt := range tests {
		h := &capHandler{}
		c := &Client{}
		c.Register("http", h)
		c.PerHost = tt.perHost // set after the handler was registered
		res, err := c.Fetch(context.Background(), "http://one.example/")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if !slices.Equal(h.caps, []int{tt.want}) {
			t.Errorf("PerHost %d: the handler was granted %v connections, want %d", tt.perHost, h.caps, tt.want)
		}
	}
	if got := (&Request{}).MaxConnsPerHost(); got != 2 {
		t.Errorf("a request made without a Client: MaxConnsPerHost() = %d, want 2, a zero Client's", got)
	}
}

// TestBatchHostCap: a Batch's per-host cap is the Client's, lowered by the
// Batch's own PerHost when that is lower, in connections' worth of
// transfers.
func TestBatchHostCap(t *testing.T) {
	tests := []struct {
		name          string
		client, batch int
		depth         int // Pipelining; 0: not a Pipeliner
		want          int // transfers at once
	}{
		{"the Client's", 3, 0, 0, 3},
		{"the Client's, zero", 0, 0, 0, 2},
		{"the Batch's, lower", 3, 1, 0, 1},
		{"the Client's, lower", 3, 5, 0, 3},
		{"no cap but Parallel", -1, 0, 0, 16},
		{"the Batch's alone", -1, 4, 0, 4},
		{"pipelined", 2, 0, 4, 8},
		{"pipelined, the Batch's", 3, 1, 4, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGate(tt.depth, tt.want)
			var h Handler = g
			if tt.depth == 0 {
				h = plainGate{g}
			}
			c := &Client{PerHost: tt.client}
			c.Register("http", h)
			urls := make([]string, 24)
			for i := range urls {
				urls[i] = fmt.Sprintf("http://one.example/%d", i)
			}
			b := &Batch{Client: c, Parallel: 16, PerHost: tt.batch}
			err := b.Run(context.Background(), seq(urls...), func(ctx context.Context, r *Result) error {
				if r.Err != nil {
					return r.Err
				}
				return r.Resource.Body.Close()
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := g.peakSeen(); got != tt.want {
				t.Errorf("Client PerHost %d, Batch PerHost %d: %d transfers at once, want %d", tt.client, tt.batch, got, tt.want)
			}
		})
	}
}

// TestBatchCapNoWorkerWaitsOnClient: a Batch whose PerHost is above the
// Client's does not hand a host more URLs than the Client lets run: its
// workers would wait on the Client's slots while other hosts' URLs wait
// for a worker.
func TestBatchCapNoWorkerWaitsOnClient(t *testing.T) {
	const nFast = 10
	fastDone := make(chan struct{})
	c := &Client{PerHost: 1}
	c.Register("http", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		t := time.NewTimer(5 * time.Second) // so that a failure ends
		defer t.Stop()
		select { // slow until every fast item is done
		case <-fastDone:
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &Resource{Size: -1, Body: io.NopCloser(strings.NewReader("page"))}, nil
	}))
	c.Register("gopher", staticHandler("item"))
	urls := []string{"http://slow.example/1", "http://slow.example/2", "http://slow.example/3"}
	for i := range nFast {
		urls = append(urls, fmt.Sprintf("gopher://fast.example/0/%d", i))
	}
	var order []string
	fast := 0
	var mu sync.Mutex
	b := &Batch{Client: c, Parallel: 3, PerHost: 3}
	err := b.Run(context.Background(), seq(urls...), func(ctx context.Context, r *Result) error {
		if r.Err != nil {
			return r.Err
		}
		io.Copy(io.Discard, r.Resource.Body)
		mu.Lock()
		defer mu.Unlock()
		order = append(order, r.URL.Scheme)
		if r.URL.Scheme == "gopher" {
			if fast++; fast == nFast {
				close(fastDone)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Repeat([]string{"gopher"}, nFast), slices.Repeat([]string{"http"}, 3)...)
	if !slices.Equal(order, want) {
		t.Errorf("order of completion %v, want every fast item before the slow host's pages", order)
	}
}
