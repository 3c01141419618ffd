package fetch

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/url"
)

// gateHandler counts the fetches in progress at once. Each waits, up to a
// second, until want are in progress, so that a cap below want shows as a
// peak below it and a cap above as a peak above. Its waits are meant for
// a synctest bubble's clock, where they take no time.
type gateHandler struct {
	depth int // its Pipelining; 0: not a Pipeliner (see plainGate)
	want  int

	mu        sync.Mutex
	cur, peak int
	reached   chan struct{}
	once      sync.Once
}

func newGate(depth, want int) *gateHandler {
	return &gateHandler{depth: depth, want: want, reached: make(chan struct{})}
}

func (g *gateHandler) Pipelining(*url.URL) int { return g.depth }

func (g *gateHandler) Fetch(ctx context.Context, req *Request) (*Resource, error) {
	g.mu.Lock()
	g.cur++
	g.peak = max(g.peak, g.cur)
	if g.cur >= g.want {
		g.once.Do(func() { close(g.reached) })
	}
	g.mu.Unlock()
	select {
	case <-g.reached:
	case <-time.After(time.Second):
	case <-ctx.Done():
	}
	time.Sleep(5 * time.Millisecond)
	g.mu.Lock()
	g.cur--
	g.mu.Unlock()
	return &Resource{URL: req.URL, Size: -1, Body: io.NopCloser(strings.NewReader("x"))}, nil
}

func (g *gateHandler) peakSeen() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak
}

// plainGate is a gateHandler that is no Pipeliner.
type plainGate struct{ g *gateHandler }

func (p plainGate) Fetch(ctx context.Context, req *Request) (*Resource, error) {
	return p.g.Fetch(ctx, req)
}

// TestPipelinerCaps: to a handler that pipelines, the Client's and the
// Batch's per-host caps let Pipelining times as many transfers run, and
// no more; to one that does not, PerHost.
func TestPipelinerCaps(t *testing.T) {
	tests := []struct {
		name      string
		depth     int
		pipeliner bool
		want      int // transfers at once with PerHost 2
	}{
		{"plain", 0, false, 2},
		{"depth 1", 1, true, 2},
		{"depth 0", 0, true, 2},
		{"depth 4", 4, true, 8},
	}
	for _, tt := range tests {
		for _, via := range []string{"client", "batch"} {
			t.Run(tt.name+" "+via, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					g := newGate(tt.depth, tt.want)
					var h Handler = g
					if !tt.pipeliner {
						h = plainGate{g}
					}
					urls := make([]string, 24)
					for i := range urls {
						urls[i] = fmt.Sprintf("http://one.example/%d", i)
					}
					switch via {
					case "client":
						c := &Client{PerHost: 2}
						c.Register("http", h)
						var wg sync.WaitGroup
						for _, u := range urls {
							wg.Go(func() {
								res, err := c.Fetch(context.Background(), u)
								if err != nil {
									t.Error(err)
									return
								}
								res.Body.Close()
							})
						}
						wg.Wait()
					case "batch":
						c := &Client{PerHost: -1} // the Batch's cap alone
						c.Register("http", h)
						b := &Batch{Client: c, Parallel: 16, PerHost: 2, FetchDuplicates: true}
						err := b.Run(context.Background(), seq(urls...), func(ctx context.Context, r *Result) error {
							if r.Err != nil {
								return r.Err
							}
							return r.Resource.Body.Close()
						})
						if err != nil {
							t.Fatal(err)
						}
					}
					if got := g.peakSeen(); got != tt.want {
						t.Errorf("%d transfers at once, want %d", got, tt.want)
					}
				})
			})
		}
	}
}
