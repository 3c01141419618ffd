package crawl

import (
	"io"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/rfc1738/fetch/url"
)

// maxToken bounds one tag or text run of a page (a longer one ends the
// page's links, not its transfer).
const maxToken = 1 << 20

// htmlLinks reads the links of an HTML page from r as it streams, calling
// emit for each, resolved against the page's URL and its first
// <base href>, fragments dropped: the href of a, area and link; the src
// (and srcset) of img, source, script, frame, iframe, embed, audio and
// video, and a video's poster; an object's data; a GET form's action; a
// <meta http-equiv=refresh>'s URL; and the url() of CSS in <style> and
// style attributes. A <meta name=robots> that says nofollow (or none) is
// reported to nofollow (the links after it are the caller's to drop). It stops
// at the end of r, at a tag larger than maxToken, or when emit returns
// false. It returns how many links did not parse.
func htmlLinks(r io.Reader, page *url.URL, emit func(Link) bool, nofollow func()) (bad int) {
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

// robotsNofollow reports whether a <meta name=robots> content forbids
// following the page's links: "nofollow" or "none".
func robotsNofollow(content string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(content), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if w == "nofollow" || w == "none" {
			return true
		}
	}
	return false
}

// srcset returns the URLs of a srcset attribute: comma-separated image
// candidates, each a URL and an optional descriptor ("a.png 2x").
func srcset(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		if f := strings.Fields(c); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out
}

// refreshURL returns the URL of a refresh's content ("5; url=next.html").
func refreshURL(content string) (string, bool) {
	_, rest, ok := strings.Cut(content, ";")
	if !ok {
		_, rest, ok = strings.Cut(content, ",")
	}
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if len(rest) >= 4 && strings.EqualFold(rest[:3], "url") {
		if r := strings.TrimSpace(rest[3:]); strings.HasPrefix(r, "=") {
			rest = strings.TrimSpace(r[1:])
		}
	}
	rest = strings.Trim(rest, `'"`)
	return rest, rest != ""
}

// cssURL matches url(...) and @import "..." in CSS. It is compiled on
// first use, not at package init: every run of the command links this
// package, and most extract no links.
var cssURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)|@import\s+(?:"([^"]*)"|'([^']*)')`)
})

// cssURLs returns the URLs CSS text names: url(...) and @import "...".
func cssURLs(css string) []string {
	var out []string
	for _, m := range cssURL().FindAllStringSubmatch(css, -1) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, g)
				break
			}
		}
	}
	return out
}
