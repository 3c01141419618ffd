package crawl

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// A small page is visited apart from its request: with one request at a
// time to the host (PerHost 1), the next URL is requested while Visit
// still holds the first page (it waits for that request). A page visited
// on the request's worker would hold the host until Visit returned: the
// second request would never come while the first page waits for it.
func TestCrawlVisitsApartFromRequests(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	second := make(chan struct{})
	var once sync.Once
	c := &fetch.Client{}
	c.Register("http", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		body := "a"
		if req.URL.HTTP().Path == "/b" {
			once.Do(func() { close(second) })
			body = "b"
		}
		return &fetch.Resource{URL: req.URL, MediaType: "text/html", Size: int64(len(body)), Body: io.NopCloser(strings.NewReader(body))}, nil
	}))
	var mu sync.Mutex
	var visited []string
	cr := &Crawler{Client: c, IgnoreRobots: true, Parallel: 2, PerHost: 1,
		Visit: func(ctx context.Context, p *Page) error {
			if p.Err != nil {
				return p.Err
			}
			if p.URL.HTTP().Path == "/a" {
				select {
				case <-second:
				case <-time.After(10 * time.Second): // only when it fails
					return errors.New("the second URL was not requested while the first page was visited")
				}
			}
			mu.Lock()
			visited = append(visited, p.URL.String())
			mu.Unlock()
			return nil
		}}
	st, err := cr.Run(ctx, "http://web.example/a", "http://web.example/b")
	if err != nil || st.Fetched != 2 {
		t.Errorf("Run = %+v, %v; want 2 fetched, the second while the first was visited (visited %q)", st, err, visited)
	}
}
