package crawl

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// benchPage is page i of bench/crawl.sh's site of n pages: links to the
// index, to itself by "./" and "../site/" spellings, to one shared
// image, and to pages 10i+1 .. 10i+10.
func benchPage(i, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<html><body><a href="index.html">home</a> <a href="./p%d.html">me</a> <a href="../site/p%d.html">me</a>`+"\n"+`<img src="logo.png">`+"\n", i, i)
	for k := 10*i + 1; k < 10*i+11 && k < n; k++ {
		fmt.Fprintf(&b, "<a href=\"p%d.html\">%d</a>\n", k, k)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// BenchmarkExtractLinks reads the links of one page of bench/crawl.sh's
// site.
func BenchmarkExtractLinks(b *testing.B) {
	page := benchPage(42, 5000)
	u, err := url.Parse("http://127.0.0.1:8080/site/p42.html")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		htmlLinks(strings.NewReader(page), u, func(Link) bool { n++; return true }, nil)
		if n != 14 {
			b.Fatalf("%d links, want 14", n)
		}
	}
}

// BenchmarkCrawl crawls bench/crawl.sh's site of 5,000 pages from a
// handler in memory (no network, no files), 4 at a time, as fetch -r
// --parallel 4 --per-host 4 --no-robots does: the engine's own cost a
// crawl (the frontier, link extraction, scope and dedupe, the batch).
func BenchmarkCrawl(b *testing.B) {
	const n = 5000
	pages := make(map[string]string, n+1)
	for i := range n {
		pages["/site/p"+strconv.Itoa(i)+".html"] = benchPage(i, n)
	}
	pages["/site/"] = `<html><body><a href="p0.html">start</a></body></html>` + "\n"
	pages["/site/index.html"] = pages["/site/"]
	pages["/site/logo.png"] = "\x89PNG" + strings.Repeat("\x00", 1000)
	c := &fetch.Client{}
	c.Register("http", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		p := req.URL.HTTP().Path
		body, ok := pages[p]
		if !ok {
			return nil, fetch.Reply(fetch.NotFound, 404, "not found")
		}
		mt := "text/html"
		if strings.HasSuffix(p, ".png") {
			mt = "image/png"
		}
		return &fetch.Resource{URL: req.URL, MediaType: mt, Size: int64(len(body)), Body: io.NopCloser(strings.NewReader(body))}, nil
	}))
	b.ReportAllocs()
	for b.Loop() {
		cr := &Crawler{Client: c, Depth: 100, IgnoreRobots: true, Parallel: 4, PerHost: 4,
			Scope:  Scope{Prefixes: []string{"http://127.0.0.1:8080/site/"}},
			Follow: func(ctx context.Context, l *Link, add func(Link)) bool { return true }, // as fetch -r has one
			Visit: func(ctx context.Context, p *Page) error {
				if p.Err != nil {
					return p.Err
				}
				_, err := io.Copy(io.Discard, p.Resource.Body)
				return err
			}}
		st, err := cr.Run(context.Background(), "http://127.0.0.1:8080/site/")
		if err != nil || st.Fetched != n+3 {
			b.Fatalf("Run = %+v, %v; want %d fetched", st, err, n+3)
		}
	}
}
