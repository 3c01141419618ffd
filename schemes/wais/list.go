package wais

import (
	"context"
	"fmt"
	"io"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

var _ fetch.Lister = (*Handler)(nil)

// List runs the relevance search a wais://host/database?words URL names
// and returns its hits as entries, best first: the headline as the name,
// the URL that retrieves the document, its length and media type. The
// search is read whole (it is bounded by the message limit), so the
// Listing holds no connection. Other URLs are Unsupported.
func (h *Handler) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	t, err := parseTarget(req.URL)
	if err != nil {
		return nil, err
	}
	if !t.HasSearch {
		return nil, fetch.Errorf(fetch.Unsupported, "only a WAIS search (database?words) is a listing")
	}
	hits, err := h.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	next := func() (fetch.Entry, error) {
		if len(hits) == 0 {
			return fetch.Entry{}, io.EOF
		}
		hit := hits[0]
		hits = hits[1:]
		u, err := url.ParseLenient(hit.URL) // libwww's form, with the length
		if err != nil {
			return fetch.Entry{}, fmt.Errorf("%w: hit %q: %v", fetch.ErrUnparsed, fetch.Sanitize(hit.Headline), err)
		}
		return fetch.Entry{
			Name:      fetch.Sanitize(hit.Headline),
			URL:       u,
			Kind:      fetch.ResourceFile,
			Size:      hit.Length,
			MediaType: mediaType(hit.Type()),
		}, nil
	}
	return fetch.NewListing(next, nil), nil
}
