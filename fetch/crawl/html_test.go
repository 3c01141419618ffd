package crawl

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/rfc1738/fetch/url"
)

// htmlLinks finds what it did when it read every tag's name and
// attributes (htmlLinksRef, as it was before it told elements from the raw
// tag): upper case, style attributes on any element, </STYLE>, entities,
// odd white space, names longer than any element's.
func TestHTMLLinksSameAsRef(t *testing.T) {
	for _, page := range htmlCorpus {
		got, want := linksOf(htmlLinks, page), linksOf(htmlLinksRef, page)
		if !slices.Equal(got, want) {
			t.Errorf("page %q:\n got %q\nwant %q", page, got, want)
		}
	}
}

func FuzzHTMLLinks(f *testing.F) {
	for _, page := range htmlCorpus {
		f.Add(page)
	}
	f.Fuzz(func(t *testing.T, page string) {
		got, want := linksOf(htmlLinks, page), linksOf(htmlLinksRef, page)
		if !slices.Equal(got, want) {
			t.Errorf("page %q:\n got %q\nwant %q", page, got, want)
		}
	})
}

var htmlCorpus = []string{
	`<A HREF="a.html">a</A><IMG SRC=i.png><DIV STYLE="background:url(d.png)"></DIV>`,
	`<p Style='x:url("p.png")'>x</p><span data-x="style" title=y></span><Style>a{b:url(s.png)}</STYLE><style>@import "m.css";</style >`,
	`<a href="q?x=1&amp;y=2">q</a><a href='&#x2f;abs'>abs</a><a` + "\n" + `href=nl.html>nl</a><a/href=slash.html>s</a>`,
	`<verylongelementnameindeed style="background:url(long.png)" href=no.html></verylongelementnameindeed><a href=after.html>`,
	`<base HREF="/d/"><link REL="Canonical NoFollow" href=c.html><meta HTTP-EQUIV=Refresh content="0; URL=r.html"><form method=POST action=post><form action=get>`,
	`<meta name=ROBOTS content="NoFollow"><a href=after-meta.html><object data=o.swf><video poster=v.jpg src=v.mp4><img srcset="a.png 1x, b.png 2x">`,
	"<a\x00 href=nul.html><sty\x00le>x{y:url(n.png)}</style><a href=\"\x00.html\"><script>document.write('<a href=s.html>')</script><a href=end.html>",
	`<!-- <a href=comment.html> --><textarea><a href=ta.html></textarea><title><a href=t.html></title><a href=#frag><a href=" sp.html ">`,
}

func linksOf(read func(io.Reader, *url.URL, func(Link) bool, func()) int, page string) []string {
	base, _ := url.Parse("http://h.example/dir/page.html")
	var out []string
	bad := read(strings.NewReader(page), base, func(l Link) bool {
		out = append(out, fmt.Sprintf("%s %s %q", l.URL, l.Tag, l.Rel))
		return true
	}, func() { out = append(out, "nofollow") })
	return append(out, fmt.Sprint("bad ", bad))
}

func htmlLinksRef(r io.Reader, page *url.URL, emit func(Link) bool, nofollow func()) (bad int) {
	z := html.NewTokenizer(r)
	z.SetMaxBuf(maxToken)
	base := page
	based, stopped := false, false
	inStyle := false
	add := func(raw, tag, rel string) {
		if stopped {
			return
		}
		ref := strings.TrimSpace(raw)
		if ref == "" || strings.HasPrefix(ref, "#") {
			return
		}
		u, err := base.ResolveReference(ref)
		if err != nil {
			bad++
			return
		}
		u.Fragment, u.HasFragment = "", false
		if !emit(Link{URL: u, Tag: tag, Rel: rel}) {
			stopped = true
		}
	}
	for !stopped {
		switch z.Next() {
		case html.ErrorToken:
			return bad
		case html.TextToken:
			if inStyle {
				for _, raw := range cssURLs(string(z.Text())) {
					add(raw, "css", "")
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if atom.Lookup(name) == atom.Style {
				inStyle = false
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			el := atom.Lookup(name)
			if el == atom.Style {
				inStyle = true
			}
			if !hasAttr {
				continue
			}
			attrs := map[string]string{}
			for {
				k, v, more := z.TagAttr()
				switch string(k) {
				case "href", "src", "srcset", "rel", "poster", "data", "action", "method", "http-equiv", "name", "content", "style":
					if _, dup := attrs[string(k)]; !dup {
						attrs[string(k)] = string(v)
					}
				}
				if !more {
					break
				}
			}
			rel := strings.ToLower(strings.Join(strings.Fields(attrs["rel"]), " "))
			if s, ok := attrs["style"]; ok {
				for _, raw := range cssURLs(s) {
					add(raw, "css", "")
				}
			}
			switch el {
			case atom.Base:
				if h, ok := attrs["href"]; ok && !based {
					based = true
					if b, err := base.ResolveReference(strings.TrimSpace(h)); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
						base = b
					}
				}
			case atom.A, atom.Area, atom.Link:
				if h, ok := attrs["href"]; ok {
					add(h, el.String(), rel)
				}
			case atom.Img, atom.Source, atom.Script, atom.Frame, atom.Iframe, atom.Embed, atom.Audio, atom.Video, atom.Track:
				if s, ok := attrs["src"]; ok {
					add(s, el.String(), "")
				}
				for _, raw := range srcset(attrs["srcset"]) {
					add(raw, el.String(), "")
				}
				if p, ok := attrs["poster"]; ok {
					add(p, el.String(), "")
				}
			case atom.Object:
				if d, ok := attrs["data"]; ok {
					add(d, "object", "")
				}
			case atom.Form:
				m := strings.ToLower(strings.TrimSpace(attrs["method"]))
				if a, ok := attrs["action"]; ok && (m == "" || m == "get") {
					add(a, "form", "")
				}
			case atom.Meta:
				switch {
				case strings.EqualFold(attrs["http-equiv"], "refresh"):
					if raw, ok := refreshURL(attrs["content"]); ok {
						add(raw, "meta", "")
					}
				case strings.EqualFold(attrs["name"], "robots") && robotsNofollow(attrs["content"]):
					if nofollow != nil {
						nofollow()
					}
				}
			}
		}
	}
	return bad
}
