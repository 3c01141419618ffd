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
			if rawAtom(z.Raw()) == atom.Style {
				inStyle = false
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			// The element is told from the raw tag, and its attributes
			// are read only where links may be: the tokenizer makes a
			// copy of each name and value it returns.
			raw := z.Raw()
			el := rawAtom(raw)
			if el == atom.Style {
				inStyle = true
			}
			if !linkElement(el) && !hasFoldStyle(raw) {
				continue
			}
			// TagAttr alone (TagName would copy the name again): a
			// tag without attributes gives a nil key.
			var attrs tagAttrs
			n := 0
			for {
				k, v, more := z.TagAttr()
				if k != nil {
					attrs.set(k, v)
					n++
				}
				if !more {
					break
				}
			}
			if n == 0 {
				continue
			}
			rel := ""
			if r := attrs.get(aRel); r != "" {
				rel = strings.ToLower(strings.Join(strings.Fields(r), " "))
			}
			if s, ok := attrs.lookup(aStyle); ok {
				for _, raw := range cssURLs(s) {
					add(raw, "css", "")
				}
			}
			switch el {
			case atom.Base:
				if h, ok := attrs.lookup(aHref); ok && !based {
					based = true
					if b, err := base.ResolveReference(strings.TrimSpace(h)); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
						base = b
					}
				}
			case atom.A, atom.Area, atom.Link:
				if h, ok := attrs.lookup(aHref); ok {
					add(h, el.String(), rel)
				}
			case atom.Img, atom.Source, atom.Script, atom.Frame, atom.Iframe, atom.Embed, atom.Audio, atom.Video, atom.Track:
				if s, ok := attrs.lookup(aSrc); ok {
					add(s, el.String(), "")
				}
				if ss, ok := attrs.lookup(aSrcset); ok {
					for _, raw := range srcset(ss) {
						add(raw, el.String(), "")
					}
				}
				if p, ok := attrs.lookup(aPoster); ok {
					add(p, el.String(), "")
				}
			case atom.Object:
				if d, ok := attrs.lookup(aData); ok {
					add(d, "object", "")
				}
			case atom.Form:
				m := strings.ToLower(strings.TrimSpace(attrs.get(aMethod)))
				if a, ok := attrs.lookup(aAction); ok && (m == "" || m == "get") {
					add(a, "form", "")
				}
			case atom.Meta:
				switch {
				case strings.EqualFold(attrs.get(aHTTPEquiv), "refresh"):
					if raw, ok := refreshURL(attrs.get(aContent)); ok {
						add(raw, "meta", "")
					}
				case strings.EqualFold(attrs.get(aName), "robots") && robotsNofollow(attrs.get(aContent)):
					if nofollow != nil {
						nofollow()
					}
				}
			}
		}
	}
	return bad
}

// The attributes htmlLinks reads, by index in a tagAttrs.
const (
	aHref = iota
	aSrc
	aSrcset
	aRel
	aPoster
	aData
	aAction
	aMethod
	aHTTPEquiv
	aName
	aContent
	aStyle
	nAttrs
)

// tagAttrs holds the attributes of a tag htmlLinks reads, the first of
// each name.
type tagAttrs struct {
	val [nAttrs]string
	has [nAttrs]bool
}

// set takes one attribute of the tag; one of a name already set, or of
// no name read, is ignored.
func (a *tagAttrs) set(k, v []byte) {
	i := -1
	switch string(k) {
	case "href":
		i = aHref
	case "src":
		i = aSrc
	case "srcset":
		i = aSrcset
	case "rel":
		i = aRel
	case "poster":
		i = aPoster
	case "data":
		i = aData
	case "action":
		i = aAction
	case "method":
		i = aMethod
	case "http-equiv":
		i = aHTTPEquiv
	case "name":
		i = aName
	case "content":
		i = aContent
	case "style":
		i = aStyle
	}
	if i >= 0 && !a.has[i] {
		a.val[i], a.has[i] = string(v), true
	}
}

func (a *tagAttrs) lookup(i int) (string, bool) { return a.val[i], a.has[i] }

func (a *tagAttrs) get(i int) string { return a.val[i] }

// linkElement reports whether htmlLinks reads links from an element's
// attributes (but for style, which any element may have).
func linkElement(el atom.Atom) bool {
	switch el {
	case atom.Base, atom.A, atom.Area, atom.Link, atom.Img, atom.Source, atom.Script, atom.Frame, atom.Iframe,
		atom.Embed, atom.Audio, atom.Video, atom.Track, atom.Object, atom.Form, atom.Meta:
		return true
	}
	return false
}

// rawAtom returns the element of a raw start or end tag ("<A href=x>",
// "</style>"), as the tokenizer's TagName would name it: the name ends at
// white space, '/' or '>', and is lower-cased. It is 0 for a name no atom
// has.
func rawAtom(raw []byte) atom.Atom {
	i := 1 // after '<'
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	var buf [16]byte
	n := 0
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '/' || c == '>' {
			break
		}
		if n == len(buf) {
			return 0 // longer than any element htmlLinks reads
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return atom.Lookup(buf[:n])
}

// hasFoldStyle reports whether a raw tag holds "style" in any case: an
// element that may have a style attribute.
func hasFoldStyle(raw []byte) bool {
	for i := 0; i+5 <= len(raw); i++ {
		if raw[i]|0x20 == 's' && raw[i+1]|0x20 == 't' && raw[i+2]|0x20 == 'y' && raw[i+3]|0x20 == 'l' && raw[i+4]|0x20 == 'e' {
			return true
		}
	}
	return false
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
