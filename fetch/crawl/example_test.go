package crawl_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/crawl"
	"github.com/rfc1738/fetch/fetch/warc"
	"github.com/rfc1738/fetch/schemes"
)

// Crawl a gopher hole into a WARC file: every menu and item of the seed's
// host, five links deep, eight at a time and two per host, each URL once,
// robots.txt obeyed on the web pages a hole may link to.
func ExampleCrawler() {
	f, err := os.Create("hole.warc.gz")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	w := warc.NewWriter(f, warc.Options{Gzip: true, Filename: "hole.warc.gz", Software: "mycrawler/1.0"})
	if _, err := w.WriteInfo(); err != nil {
		log.Fatal(err)
	}
	c := new(fetch.Client)
	schemes.Register(c)
	defer c.Close()
	c.DialContext = w.Dial(c.DialContext) // records carry WARC-IP-Address
	cr := &crawl.Crawler{
		Client:   c,
		Depth:    5,
		Parallel: 8,
		PerHost:  2,
		Retry:    fetch.RetryPolicy{Attempts: 2},
		Scope:    crawl.Scope{Schemes: []string{"gopher", "http", "https"}},
		Sink:     w, // every resource fetched, recorded whole
		Visit: func(ctx context.Context, p *crawl.Page) error {
			if p.Err != nil {
				log.Print(p.Err) // the crawl goes on
				return nil
			}
			// Read the body, or not: the crawl reads what is left, and a
			// body cut short is retried, or visited as a failure.
			n, _ := io.Copy(io.Discard, p.Resource.Body)
			fmt.Println(p.Depth, p.URL, p.Resource.Kind, n)
			return nil // an error would stop the crawl
		},
	}
	st, err := cr.Run(context.Background(), "gopher://gopher.example/")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d fetched, %d failed, %d bytes, %d disallowed by robots.txt\n",
		st.Fetched, st.Failed, st.Bytes, st.Robots)
}

// A crawl with a follow hook (no images), a filter in Visit (only text,
// up to 10 MiB: the rest skipped, not failed or fetched again) and its
// frontier on disk, so that a second run goes on where a killed one
// stopped, or recrawls a finished one conditionally.
func ExampleCrawler_hook() {
	c := new(fetch.Client)
	schemes.Register(c)
	defer c.Close()
	fr, err := crawl.OpenDiskFrontier("state")
	if err != nil {
		log.Fatal(err)
	}
	defer fr.Close()
	cr := &crawl.Crawler{
		Client:   c,
		Depth:    3,
		Frontier: fr,
		Follow: func(ctx context.Context, l *crawl.Link, add func(crawl.Link)) bool {
			return l.Tag != "img"
		},
		Visit: func(ctx context.Context, p *crawl.Page) error {
			if p.Err != nil {
				return nil
			}
			if !strings.HasPrefix(p.Resource.MediaType, "text/") || p.Resource.Size > 10<<20 {
				p.Resource.Body.Close() // skipped
				return nil
			}
			_, err := io.Copy(io.Discard, p.Resource.Body) // or store it
			return err
		},
	}
	st, err := cr.Run(context.Background(), "http://127.0.0.1:8080/")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d fetched, %d skipped, %d unchanged\n", st.Fetched, st.Skipped, st.Unchanged)
}
