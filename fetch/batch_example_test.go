package fetch_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/url"
)

// A Batch fetches URLs from any iterator: here a slice, but as well the
// lines of a file read as the batch goes. The callback runs concurrently,
// with each Body open; it sees every URL's success or final failure once.
func ExampleBatch() {
	c := new(fetch.Client) // schemes.Register(c) registers the real schemes
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

// A crawler's loop on the Client alone: listings (fetch.Lister) name the
// next URLs, each visited once by its normal form, under a policy that
// keeps the crawl to public addresses and data schemes, with transient
// failures retried.
func Example_crawlLoop() {
	ctx := context.Background()
	c := &fetch.Client{
		Parser: url.Parser{Lenient: true}, // text from servers: lenient
		Policy: fetch.Policy{DenyPrivate: true, Schemes: []string{"gopher", "ftp", "http", "https"}},
	}
	schemes.Register(c)
	defer c.Close()
	retry := fetch.RetryPolicy{Attempts: 3}
	seed, _ := c.Parser.Parse("gopher://gopher.example/")
	queue, seen := []*url.URL{seed}, map[string]bool{}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if k := u.Normalize().String(); seen[k] {
			continue
		} else {
			seen[k] = true
		}
		req := &fetch.Request{URL: u}
		l, err := c.List(ctx, req)
		for try := 1; err != nil; try++ {
			wait, again := retry.Wait(req, try, err)
			if !again {
				break
			}
			time.Sleep(wait)
			l, err = c.List(ctx, req)
		}
		if err != nil {
			fmt.Println(err) // a *fetch.Error naming the URL, with its Kind
			continue
		}
		for e, err := l.Next(); err == nil; e, err = l.Next() {
			fmt.Println(e.Kind, e.URL)
			if e.Kind == fetch.ResourceDirectory || e.Kind == fetch.ResourceMenu {
				queue = append(queue, e.URL)
			}
		}
		l.Close()
	}
}
