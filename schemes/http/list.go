package http

import (
	"context"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

var (
	_ fetch.Lister     = (*Handler)(nil)
	_ fetch.BodyLister = (*Handler)(nil)
)

// Bounds of listing a page.
const (
	maxPage  = 64 << 20 // bytes of HTML read from one page
	maxToken = 1 << 20  // bytes of one tag or text run
	maxName  = 200      // bytes of link text kept as an entry's Name
)

// List fetches an HTML page and yields the links in it as entries, as the
// page streams in (a redirect is returned as a fetch.RedirectListing, for
// the Client to follow): the href of a, area and link elements and the src of
// img, frame and iframe elements, resolved (url.URL.ResolveReference)
// against the page's URL (after redirects) and its first <base href>,
// fragments dropped. Name is a
// link's text (an img's alt) or else the attribute as written; Kind is
// ResourceFile and Size -1, for nothing is known of the target before it is
// fetched. Links that do not parse as URLs, leniently, are counted as
// skipped. A reply that is not HTML (text/html or application/xhtml+xml)
// cannot be listed: Kind Unsupported. A page is read up to 64 MiB, a tag
// up to 1 MiB.
func (h *Handler) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	if req.Head {
		return nil, fetch.Errorf(fetch.Usage, "a page's links cannot be listed from its metadata alone")
	}
	res, err := h.Fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	if res.Redirect != nil {
		return fetch.RedirectListing(res), nil
	}
	mt, _, _ := strings.Cut(res.MediaType, ";")
	switch strings.TrimSpace(strings.ToLower(mt)) {
	case "text/html", "application/xhtml+xml":
	default:
		res.Body.Close()
		if mt == "" {
			mt = "no media type"
		}
		return nil, fetch.Errorf(fetch.Unsupported, "%s is not HTML but %s: only HTML pages can be listed", res.URL.Redacted(), fetch.Sanitize(mt))
	}
	p := newPageLinks(res.Body, res.URL)
	return fetch.NewListing(p.next, res.Body), nil
}

// ListBody reads the links of a page Fetch returned from body, as List
// yields them, without a request: a crawler that stores the page follows
// its links from the same bytes. A reply that is not HTML cannot be
// listed: Kind Unsupported.
func (h *Handler) ListBody(req *fetch.Request, res *fetch.Resource, body io.Reader) (*fetch.Listing, error) {
	mt, _, _ := strings.Cut(res.MediaType, ";")
	switch strings.TrimSpace(strings.ToLower(mt)) {
	case "text/html", "application/xhtml+xml":
	default:
		return nil, fetch.Errorf(fetch.Unsupported, "%s is not HTML: only HTML pages can be listed", res.URL.Redacted())
	}
	p := newPageLinks(body, res.URL)
	return fetch.NewListing(p.next, nil), nil
}

// pageLinks reads the links of an HTML page one at a time.
type pageLinks struct {
	z      *html.Tokenizer
	lr     *io.LimitedReader
	page   *url.URL // the page's URL, then its <base href>
	based  bool
	anchor *pendingLink // an <a> or <area> whose text is being gathered
	queue  []fetch.Entry
	errs   int // links that did not parse, still to be reported
}

type pendingLink struct {
	raw  string
	text strings.Builder
}

func newPageLinks(r io.Reader, u *url.URL) *pageLinks {
	lr := &io.LimitedReader{R: r, N: maxPage + 1}
	z := html.NewTokenizer(lr)
	z.SetMaxBuf(maxToken)
	return &pageLinks{z: z, lr: lr, page: u}
}

func (p *pageLinks) next() (fetch.Entry, error) {
	for {
		if p.errs > 0 {
			p.errs--
			return fetch.Entry{}, fmt.Errorf("a link that is no URL: %w", fetch.ErrUnparsed)
		}
		if len(p.queue) > 0 {
			e := p.queue[0]
			p.queue = p.queue[1:]
			return e, nil
		}
		switch p.z.Next() {
		case html.ErrorToken:
			p.endAnchor()
			if len(p.queue) > 0 || p.errs > 0 {
				continue
			}
			err := p.z.Err()
			switch {
			case p.lr.N <= 0:
				return fetch.Entry{}, fetch.Errorf(fetch.Protocol, "the page is larger than %d bytes", maxPage)
			case err == html.ErrBufferExceeded:
				return fetch.Entry{}, fetch.Errorf(fetch.Protocol, "a tag or text of the page is larger than %d bytes", maxToken)
			}
			return fetch.Entry{}, err
		case html.TextToken:
			if a := p.anchor; a != nil && a.text.Len() < maxName {
				a.text.Write(p.z.Text())
			}
		case html.EndTagToken:
			name, _ := p.z.TagName()
			if a := atom.Lookup(name); a == atom.A || a == atom.Area {
				p.endAnchor()
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			p.tag()
		}
	}
}

// tag handles a start tag: a base, or an element with a link.
func (p *pageLinks) tag() {
	name, hasAttr := p.z.TagName()
	if !hasAttr {
		if atom.Lookup(name) == atom.A {
			p.endAnchor()
		}
		return
	}
	el := atom.Lookup(name)
	var want string
	switch el {
	case atom.A, atom.Area, atom.Link, atom.Base:
		want = "href"
	case atom.Img, atom.Frame, atom.Iframe:
		want = "src"
	default:
		return
	}
	var raw, alt string
	found := false
	for {
		k, v, more := p.z.TagAttr()
		switch string(k) {
		case want:
			raw, found = string(v), true
		case "alt":
			alt = string(v)
		}
		if !more {
			break
		}
	}
	switch {
	case el == atom.A || el == atom.Area:
		p.endAnchor()
		if found {
			p.anchor = &pendingLink{raw: raw}
			if el == atom.Area {
				p.anchor.text.WriteString(alt)
				p.endAnchor()
			}
		}
	case !found:
	case el == atom.Base:
		if !p.based {
			p.based = true
			if b, err := p.page.ResolveReference(raw); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
				p.page = b
			}
		}
	default:
		p.add(raw, alt)
	}
}

// endAnchor emits the pending <a> or <area>, named by its text.
func (p *pageLinks) endAnchor() {
	if a := p.anchor; a != nil {
		p.anchor = nil
		p.add(a.raw, a.text.String())
	}
}

// add resolves a link and queues its entry, or counts it as unparsed.
func (p *pageLinks) add(raw, text string) {
	ref := strings.TrimSpace(raw)
	if ref == "" || strings.HasPrefix(ref, "#") {
		return // the page itself
	}
	u, err := p.page.ResolveReference(ref)
	if err != nil {
		p.errs++
		return
	}
	u.Fragment, u.HasFragment = "", false
	name := strings.Join(strings.Fields(text), " ")
	if len(name) > maxName {
		name = strings.ToValidUTF8(name[:maxName], "")
	}
	if name == "" {
		name = raw
	}
	p.queue = append(p.queue, fetch.Entry{Name: name, URL: u, Kind: fetch.ResourceFile, Size: -1})
}
