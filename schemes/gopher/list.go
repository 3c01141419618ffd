package gopher

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

var (
	_ fetch.Lister     = (*Handler)(nil)
	_ fetch.BodyLister = (*Handler)(nil)
)

// itemKinds are the kinds of resource the item types lead to.
var itemKinds = map[byte]fetch.ResourceKind{
	'1': fetch.ResourceMenu,
	'7': fetch.ResourceList,
	'2': fetch.ResourceList, // a CSO phone book: answers to a query
	'8': fetch.ResourceSession,
	'T': fetch.ResourceSession,
}

// List fetches the menu (or, for type 7, the search results) the URL
// names and yields its items as entries, streamed as they arrive: Name is
// the display string, URL the item's URL ("URL:" selectors give the URL
// they hold), Kind what fetching it returns (1 a menu, 7 a list, 8 and T a
// session, any other type a file), MediaType what the type implies, Size
// -1. Information lines (type i) and error items (type 3) are not entries;
// malformed lines are counted as skipped. An item of another type than 1
// or 7 cannot be listed: Kind Unsupported.
func (h *Handler) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	if t := req.URL.Gopher().Type; !isMenuType(t) {
		return nil, fetch.Errorf(fetch.Unsupported, "gopher type %s is not a menu: only menus (1) and searches (7) can be listed", sanitize(t))
	}
	res, err := h.Fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	return fetch.NewListing(h.menuItems(req, res.Body), res.Body), nil
}

// ListBody reads the items of a menu (or search results) that Fetch
// returned for req from body, as List yields them, without a request:
// a crawler that stores the menu follows its items from the same bytes.
// An item of another type than 1 or 7 is no menu: Kind Unsupported.
func (h *Handler) ListBody(req *fetch.Request, res *fetch.Resource, body io.Reader) (*fetch.Listing, error) {
	if t := req.URL.Gopher().Type; !isMenuType(t) {
		return nil, fetch.Errorf(fetch.Unsupported, "gopher type %s is not a menu: only menus (1) and searches (7) can be listed", sanitize(t))
	}
	return fetch.NewListing(h.menuItems(req, body), nil), nil
}

// menuItems returns a Listing's producer of the items of the menu read
// from body.
func (h *Handler) menuItems(req *fetch.Request, body io.Reader) func() (fetch.Entry, error) {
	m := NewMenuReader(body)
	m.Base, m.MaxLine = req.URL, h.MaxLine
	skipped, pending := 0, 0
	var held *fetch.Entry
	next := func() (fetch.Entry, error) {
		for {
			if pending > 0 {
				pending--
				return fetch.Entry{}, fmt.Errorf("a malformed menu line: %w", fetch.ErrUnparsed)
			}
			if held != nil {
				e := *held
				held = nil
				return e, nil
			}
			it, err := m.Next()
			if n := m.Skipped(); n > skipped {
				pending, skipped = n-skipped, n
			}
			if err != nil {
				if pending > 0 {
					continue
				}
				return fetch.Entry{}, err
			}
			e, ok := entry(it)
			if !ok {
				pending++
				continue
			}
			if e.URL == nil { // information and error lines
				continue
			}
			held = &e
		}
	}
	return next
}

// entry returns the Entry of a menu item; an entry without a URL for
// information and error lines, and false for an item whose URL does not
// parse.
func entry(it Item) (fetch.Entry, bool) {
	if it.Type == 'i' || it.Type == '3' {
		return fetch.Entry{}, true
	}
	s := it.URL()
	if s == "" {
		return fetch.Entry{}, false
	}
	u, err := url.ParseLenient(s)
	if err != nil {
		return fetch.Entry{}, false
	}
	kind, ok := itemKinds[it.Type]
	if !ok {
		kind = fetch.ResourceFile
	}
	e := fetch.Entry{Name: it.Display, URL: u, Kind: kind, Size: -1, MediaType: mediaTypes[string(it.Type)]}
	if g := u.Gopher(); (it.Type == '7' || it.Type == '2') && !g.HasSearch {
		e.NeedsQuery = true // a search or query, listed without its words
	}
	if sel := u.Gopher().Selector; strings.HasPrefix(sel, "/") {
		// A display string is a title, padded column or date; a
		// selector that is a path names the item as a file.
		if base := path.Base(sel); base != "/" && base != "." {
			e.FileName = base
		}
	}
	return e, true
}
