package crawl

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/xml"
	"io"
	"log/slog"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Bounds of the sitemaps of one host (the protocol's own: 50,000 URLs and
// 50 MB a file, uncompressed).
const (
	maxSitemapBytes = 50 << 20
	maxSitemaps     = 1000 // files, indexes included
)

// sitemaps follows the sitemaps of u's host, once per host: the URLs
// they list are links of depth 1 from them. Every fetch is paced as the
// crawl's others.
func (cr *crawl) sitemaps(ctx context.Context, u *url.URL, public bool) {
	if !cr.c.Sitemaps || !isHTTP(u) || cr.c.Depth < 1 {
		return
	}
	k := "sitemap " + robotsKey(u)
	cr.limMu.Lock()
	done := cr.delayed[k]
	cr.delayed[k] = true
	cr.limMu.Unlock()
	if done {
		return
	}
	var queue []string
	if cr.robots != nil {
		queue = cr.robots.Sitemaps(u)
	}
	if len(queue) == 0 {
		queue = []string{robotsKey(u) + "/sitemap.xml"}
	}
	seen := map[string]bool{}
	for n := 0; len(queue) > 0 && n < maxSitemaps; n++ {
		s := queue[0]
		queue = queue[1:]
		if seen[s] {
			continue
		}
		seen[s] = true
		su, err := url.ParseLenient(s)
		if err != nil || !isHTTP(su) {
			continue
		}
		from := &Link{URL: su, Public: public}
		queue = append(queue, cr.sitemap(ctx, from)...)
	}
}

// sitemap reads one sitemap, queueing its URLs as links, and returns the
// sitemaps an index names.
func (cr *crawl) sitemap(ctx context.Context, from *Link) (more []string) {
	res, err := cr.paced(ctx, &fetch.Request{URL: from.URL, Hop: true, FromPublic: from.Public})
	if err != nil {
		cr.logf(slog.LevelDebug, "sitemap", "url", from.URL.Redacted(), "err", err)
		return nil
	}
	defer res.Body.Close()
	var r io.Reader = bufio.NewReader(res.Body)
	if b, _ := r.(*bufio.Reader).Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil
		}
		defer zr.Close()
		r = zr
	}
	ex := &extraction{cr: cr, ctx: ctx, from: from}
	d := xml.NewDecoder(io.LimitReader(r, maxSitemapBytes))
	d.Strict = false
	index := false
	inLoc := false
	var loc strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "sitemapindex":
				index = true
			case "loc":
				inLoc = true
				loc.Reset()
			}
		case xml.CharData:
			if inLoc && loc.Len() < 8192 {
				loc.Write(t)
			}
		case xml.EndElement:
			if t.Name.Local != "loc" || !inLoc {
				continue
			}
			inLoc = false
			s := strings.TrimSpace(loc.String())
			if index {
				more = append(more, s)
				continue
			}
			if u, err := url.ParseLenient(s); err == nil {
				ex.link(Link{URL: u, Tag: "sitemap"})
			} else {
				cr.count(func(st *Stats) { st.Unparsed++ })
			}
		}
	}
	ex.flush()
	return more
}
