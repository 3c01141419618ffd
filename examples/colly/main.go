// Command colly crawls gopher holes and FTP trees (and any other scheme
// fetch serves) with github.com/gocolly/colly/v2, an HTTP crawler that knows
// nothing of them: fetch.NewRoundTripper, registered on colly's
// http.Transport for each scheme, makes menus and directories HTML pages
// whose links colly follows.
//
//	go run ./examples/colly [-depth N] URL...
//
// It prints one line per resource visited: the status, the byte count, the
// Content-Type and the URL. It stays on the hosts of the URLs given.
package main

import (
	"flag"
	"fmt"
	"net/http"
	neturl "net/url"
	"os"
	"sort"
	"sync"

	"github.com/gocolly/colly/v2"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/url"
)

func main() {
	depth := flag.Int("depth", 5, "how many links deep to follow")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: colly [-depth N] URL...")
		os.Exit(2)
	}
	if err := crawl(*depth, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "colly:", err)
		os.Exit(1)
	}
}

func crawl(depth int, seeds []string) error {
	// One fetch.Client serves every scheme; the RoundTripper adapts it to
	// net/http.
	fc := &fetch.Client{Parser: url.Parser{Lenient: true}}
	schemes.Register(fc)
	defer fc.Close()
	t := http.DefaultTransport.(*http.Transport).Clone()
	rt := fetch.NewRoundTripper(fc)
	for _, s := range []string{"gopher", "ftp", "news", "nntp", "wais", "prospero", "file"} {
		t.RegisterProtocol(s, rt)
	}

	var hosts []string
	for _, s := range seeds {
		u, err := neturl.Parse(s)
		if err != nil {
			return err
		}
		hosts = append(hosts, u.Hostname())
	}
	c := colly.NewCollector(colly.MaxDepth(depth), colly.AllowedDomains(hosts...))
	c.WithTransport(t)

	var mu sync.Mutex
	var lines []string
	failed := 0
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		e.Request.Visit(e.Attr("href"))
	})
	c.OnResponse(func(r *colly.Response) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf("%d %d %s %s", r.StatusCode, len(r.Body), r.Headers.Get("Content-Type"), r.Request.URL))
	})
	c.OnError(func(r *colly.Response, err error) {
		mu.Lock()
		defer mu.Unlock()
		failed++
		fmt.Fprintf(os.Stderr, "colly: %s: %d %v\n", r.Request.URL, r.StatusCode, err)
	})
	for _, s := range seeds {
		if err := c.Visit(s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	c.Wait()
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	if failed > 0 {
		return fmt.Errorf("%d resources failed", failed)
	}
	return nil
}
