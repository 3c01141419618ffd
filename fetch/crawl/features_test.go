package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// web is an HTTP test handler of fixed pages: path → (media type, body).
type web struct {
	mu    sync.Mutex
	pages map[string][2]string
	calls map[string]int
	ims   map[string]time.Time
	mod   time.Time
}

func (w *web) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.calls == nil {
		w.calls, w.ims = map[string]int{}, map[string]time.Time{}
	}
	p := req.URL.HTTP().Path
	if req.URL.HTTP().HasSearch {
		p += "?" + req.URL.HTTP().Search
	}
	w.calls[p]++
	w.ims[p] = req.IfModifiedSince
	pg, ok := w.pages[p]
	if !ok {
		return nil, fetch.Reply(fetch.NotFound, 404, "not found")
	}
	if !req.IfModifiedSince.IsZero() && !w.mod.After(req.IfModifiedSince) {
		return nil, fetch.Errorf(fetch.NotModified, "not modified")
	}
	return &fetch.Resource{URL: req.URL, MediaType: pg[0], Size: int64(len(pg[1])), ModTime: w.mod,
		Body: io.NopCloser(strings.NewReader(pg[1]))}, nil
}

func (w *web) client() *fetch.Client {
	c := &fetch.Client{}
	c.Register("http", fetch.HandlerFunc(w.Fetch))
	return c
}

const htmlType = "text/html"

// The links of a page: a, area, link, img (and srcset), script, iframe,
// a GET form's action, a meta refresh, CSS url()s in <style> and style
// attributes; not a POST form's; a <base href> resolves them.
func TestCrawlHTMLLinks(t *testing.T) {
	w := &web{pages: map[string][2]string{
		"/": {htmlType, `<html><head><base href="/d/"><link rel="stylesheet" href="s.css">
<meta http-equiv="refresh" content="5; url=next.html">
<style>body { background: url("bg.png") } @import 'more.css';</style></head>
<body><a href="a.html">a</a><area href="area.html"><img src="i.png" srcset="i1.png 1x, i2.png 2x">
<script src="j.js"></script><iframe src="f.html"></iframe>
<form action="search" method="get"></form><form action="post" method="POST"></form>
<div style="background-image:url(div.png)"></div><a href="#top">top</a></body></html>`},
	}}
	var mu sync.Mutex
	var got []string
	cr := &Crawler{Client: w.client(), Depth: 1, IgnoreRobots: true, Follow: func(ctx context.Context, l *Link, add func(Link)) bool {
		mu.Lock()
		got = append(got, l.Tag+" "+l.URL.String())
		mu.Unlock()
		return false
	}}
	if _, err := cr.Run(t.Context(), "http://web.example/"); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{
		"a http://web.example/d/a.html", "area http://web.example/d/area.html",
		"css http://web.example/d/bg.png", "css http://web.example/d/div.png", "css http://web.example/d/more.css",
		"form http://web.example/d/search", "iframe http://web.example/d/f.html",
		"img http://web.example/d/i.png", "img http://web.example/d/i1.png", "img http://web.example/d/i2.png",
		"link http://web.example/d/s.css", "meta http://web.example/d/next.html", "script http://web.example/d/j.js",
	}
	if !slices.Equal(got, want) {
		t.Errorf("links\n got %q\nwant %q", got, want)
	}
}

// rel=nofollow and <meta name=robots content=nofollow> are obeyed by
// default, and counted; FollowNofollow follows them.
func TestCrawlNofollow(t *testing.T) {
	pages := map[string][2]string{
		"/":  {htmlType, `<a href="/a">a</a><a rel="external nofollow" href="/b">b</a><a href="/m">m</a>`},
		"/a": {"text/plain", "a"},
		"/b": {"text/plain", "b"},
		"/m": {htmlType, `<meta name="robots" content="noindex, nofollow"><a href="/c">c</a>`},
		"/c": {"text/plain", "c"},
	}
	for _, follow := range []bool{false, true} {
		w := &web{pages: pages}
		got, st := visits(t, &Crawler{Client: w.client(), Depth: 2, IgnoreRobots: true, FollowNofollow: follow}, "http://web.example/")
		want := []string{"0 http://web.example/", "1 http://web.example/a", "1 http://web.example/m"}
		if follow {
			want = []string{"0 http://web.example/", "1 http://web.example/a", "1 http://web.example/b", "1 http://web.example/m", "2 http://web.example/c"}
		}
		if !slices.Equal(got, want) || !follow && st.Nofollow != 2 {
			t.Errorf("FollowNofollow %v: %q (%d nofollow), want %q", follow, got, st.Nofollow, want)
		}
	}
}

// The Follow hook sees each link with its referrer, depth, element and
// rel; it may drop it, change it, or add others.
func TestCrawlFollowHook(t *testing.T) {
	w := &web{pages: map[string][2]string{
		"/":      {htmlType, `<a href="/keep" rel="next">k</a><a href="/drop">d</a><a href="/old">o</a>`},
		"/keep":  {"text/plain", "k"},
		"/drop":  {"text/plain", "d"},
		"/new":   {"text/plain", "n"},
		"/extra": {"text/plain", "e"},
	}}
	var seen []string
	cr := &Crawler{Client: w.client(), Depth: 1, IgnoreRobots: true, Follow: func(ctx context.Context, l *Link, add func(Link)) bool {
		seen = append(seen, l.Referrer.String()+" "+l.Rel)
		switch l.URL.HTTP().Path {
		case "/drop":
			return false
		case "/old":
			l.URL, _ = url.Parse("http://web.example/new")
			add(Link{URL: mustURL("http://web.example/extra")})
		}
		return true
	}}
	got, st := visits(t, cr, "http://web.example/")
	want := []string{"0 http://web.example/", "1 http://web.example/extra", "1 http://web.example/keep", "1 http://web.example/new"}
	if !slices.Equal(got, want) || st.Dropped != 1 || !slices.Contains(seen, "http://web.example/ next") {
		t.Errorf("visited %q (%d dropped), hook saw %q; want %q", got, st.Dropped, seen, want)
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// A custom Key dedupes as the crawler says: here, ignoring the query.
func TestCrawlKey(t *testing.T) {
	w := &web{pages: map[string][2]string{
		"/":      {htmlType, `<a href="/p?s=1">1</a><a href="/p?s=2">2</a>`},
		"/p?s=1": {"text/plain", "p"},
		"/p?s=2": {"text/plain", "p"},
	}}
	got, _ := visits(t, &Crawler{Client: w.client(), Depth: 1, IgnoreRobots: true, Key: func(u *url.URL) string {
		s := u.Normalize().String()
		if i := strings.IndexByte(s, '?'); i >= 0 {
			s = s[:i]
		}
		return s
	}}, "http://web.example/")
	if len(got) != 2 {
		t.Errorf("visited %q, want the page and one of the two", got)
	}
}

// Requisites: one link beyond the depth, what the deepest pages need.
func TestCrawlRequisites(t *testing.T) {
	w := &web{pages: map[string][2]string{
		"/":      {htmlType, `<a href="/p">p</a>`},
		"/p":     {htmlType, `<img src="/i.png"><link rel="stylesheet" href="/s.css"><link rel="canonical" href="/c"><a href="/q">q</a>`},
		"/i.png": {"image/png", "png"},
		"/s.css": {"text/css", "css"},
	}}
	got, _ := visits(t, &Crawler{Client: w.client(), Depth: 1, IgnoreRobots: true, Requisites: true}, "http://web.example/")
	want := []string{"0 http://web.example/", "1 http://web.example/p", "2 http://web.example/i.png", "2 http://web.example/s.css"}
	if !slices.Equal(got, want) {
		t.Errorf("visited %q, want %q", got, want)
	}
}

// Sitemaps: robots.txt's Sitemap: lines, an index, a gzipped sitemap.
func TestCrawlSitemaps(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://web.example/z</loc></url></urlset>`)
	zw.Close()
	w := &web{pages: map[string][2]string{
		"/robots.txt": {"text/plain", "User-agent: *\nAllow: /\nSitemap: http://web.example/index.xml\n"},
		"/":           {htmlType, `no links`},
		"/index.xml":  {"application/xml", `<sitemapindex><sitemap><loc>http://web.example/s1.xml</loc></sitemap><sitemap><loc> http://web.example/s2.xml.gz </loc></sitemap></sitemapindex>`},
		"/s1.xml":     {"application/xml", `<urlset><url><loc>http://web.example/x</loc></url><url><loc>http://elsewhere.example/y</loc></url></urlset>`},
		"/s2.xml.gz":  {"application/gzip", gz.String()},
		"/x":          {"text/plain", "x"},
		"/z":          {"text/plain", "z"},
	}}
	got, _ := visits(t, &Crawler{Client: w.client(), Depth: 1, Sitemaps: true}, "http://web.example/")
	want := []string{"0 http://web.example/", "1 http://web.example/x", "1 http://web.example/z"}
	if !slices.Equal(got, want) {
		t.Errorf("visited %q, want %q", got, want)
	}
	for p, n := range w.calls {
		if n != 1 {
			t.Errorf("%s requested %d times", p, n)
		}
	}
}

// Stored: a resource kept from before is asked conditionally; unchanged,
// its links come from the copy and it is not visited.
func TestCrawlStored(t *testing.T) {
	mod := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := &web{mod: mod, pages: map[string][2]string{
		"/":  {htmlType, `<a href="/a">a</a>`},
		"/a": {"text/plain", "a"},
	}}
	stored := func(ctx context.Context, u *url.URL) (time.Time, func() (*fetch.Resource, error), bool) {
		if u.HTTP().Path != "/" {
			return time.Time{}, nil, false
		}
		return mod, func() (*fetch.Resource, error) {
			body := `<a href="/a">a</a>`
			return &fetch.Resource{URL: u, MediaType: htmlType, Size: int64(len(body)), Body: io.NopCloser(strings.NewReader(body))}, nil
		}, true
	}
	got, st := visits(t, &Crawler{Client: w.client(), Depth: 1, IgnoreRobots: true, Stored: stored}, "http://web.example/")
	if want := []string{"1 http://web.example/a"}; !slices.Equal(got, want) || st.Unchanged != 1 || !w.ims["/"].Equal(mod) {
		t.Errorf("visited %q, %+v, If-Modified-Since %v; want %q, 1 unchanged", got, st, w.ims["/"], want)
	}
}

// RandomWait spaces a host's requests between half and one and a half of
// the rate's interval, not evenly.
func TestCrawlRandomWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b strings.Builder
		pages := map[string][2]string{}
		for i := range 20 {
			p := "/" + string(rune('a'+i))
			b.WriteString(`<a href="` + p + `">x</a>`)
			pages[p] = [2]string{"text/plain", "x"}
		}
		pages["/"] = [2]string{htmlType, b.String()}
		var mu sync.Mutex
		var ts []time.Time
		c := &fetch.Client{}
		w := &web{pages: pages}
		c.Register("http", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
			mu.Lock()
			ts = append(ts, time.Now())
			mu.Unlock()
			return w.Fetch(ctx, req)
		}))
		cr := &Crawler{Client: c, Depth: 1, IgnoreRobots: true, PerHost: 1, Rate: rate.Every(10 * time.Second), RandomWait: true}
		if _, err := cr.Run(t.Context(), "http://web.example/"); err != nil {
			t.Fatal(err)
		}
		gaps := map[time.Duration]bool{}
		for i := 1; i < len(ts); i++ {
			d := ts[i].Sub(ts[i-1])
			if d < 4900*time.Millisecond || d > 15100*time.Millisecond {
				t.Errorf("gap %v, want 5s to 15s", d)
			}
			gaps[d.Round(time.Second)] = true
		}
		if len(gaps) < 3 {
			t.Errorf("gaps %v: not random", gaps)
		}
	})
}
