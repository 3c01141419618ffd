package fetch_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/fetch"
)

// A Batch fetches URLs from any iterator: here a slice, but as well the
// lines of a file read as the batch goes. The callback runs concurrently,
// with each Body open; it sees every URL's success or final failure once.
func ExampleBatch() {
	c := new(fetch.Client) // schemes.Register(c, schemes.Config{}) registers the real schemes
	c.Register("gopher", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		sel := req.URL.Gopher().Selector
		return &fetch.Resource{Size: int64(len(sel)), Body: io.NopCloser(strings.NewReader(sel))}, nil
	}))
	b := &fetch.Batch{
		Client:   c,
		Parallel: 16,
		PerHost:  2,
		Retry:    fetch.RetryPolicy{Attempts: 3},
	}
	urls := []string{"gopher://a.example/0/one", "gopher://b.example/0/two", "gopher://a.example/0/three", "gopher://a.example:x/"}
	var mu sync.Mutex
	var lines []string
	err := b.Run(context.Background(), slices.Values(urls), func(ctx context.Context, r *fetch.Result) error {
		var line string
		if r.Err != nil {
			line = fmt.Sprintf("%d failed: %v", r.Index, fetch.KindOf(r.Err))
		} else {
			body, err := io.ReadAll(r.Resource.Body)
			if err != nil {
				return err // this attempt failed: retried if the policy says so
			}
			line = fmt.Sprintf("%d %s: %s", r.Index, r.URL, body)
		}
		mu.Lock()
		lines = append(lines, line)
		mu.Unlock()
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// 0 gopher://a.example/0/one: /one
	// 1 gopher://b.example/0/two: /two
	// 2 gopher://a.example/0/three: /three
	// 3 failed: malformed URL
}
