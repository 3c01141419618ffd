package nntp

import (
	"bufio"
	"context"
	"fmt"
	"net/mail"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

var _ fetch.Lister = (*Handler)(nil)

// List returns the entries of an overview or of a group list, parsed: an
// overview gives one entry per article (its nntp:// URL, group and number;
// the subject as the name; the size in bytes and the date when the server
// gives them), a group list one per group (its nntp:// URL, Kind list). A
// URL naming an article is Unsupported. The Listing holds the connection
// until Close.
func (h *Handler) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	t, err := h.resolve(req.URL, true)
	if err != nil {
		return nil, err
	}
	if t.what != overview && t.what != groupList {
		return nil, fetch.Errorf(fetch.Unsupported, "an article is not a listing")
	}
	r := *req
	r.Head = false
	res, err := h.Fetch(ctx, &r)
	if err != nil {
		return nil, err
	}
	list := res.Extra[ExtraList]
	br := bufio.NewReaderSize(res.Body, 4096)
	next := func() (fetch.Entry, error) {
		for {
			line, err := readBoundedLine(br)
			if line != "" {
				return entryOf(t, list, line)
			}
			if err != nil {
				return fetch.Entry{}, err
			}
		}
	}
	return fetch.NewListing(next, res.Body), nil
}

// base is the start of the nntp URLs of a target's entries:
// "nntp://host:port/" (nntps for TLS).
func base(t *target) string { return t.server().String() + "/" }

// entryOf parses one line of an overview (RFC 3977 §8.3: number, subject,
// from, date, message-id, references, bytes, lines) or of a group list
// (LIST ACTIVE "group high low status", LIST NEWSGROUPS "group TAB
// description").
func entryOf(t *target, list, line string) (fetch.Entry, error) {
	unparsed := func() (fetch.Entry, error) {
		return fetch.Entry{}, fmt.Errorf("%w: %s line %q", fetch.ErrUnparsed, list, fetch.Sanitize(clip(line)))
	}
	e := fetch.Entry{Size: -1}
	var raw string
	if list == "overview" {
		f := strings.Split(line, "\t")
		if len(f) < 5 || !digits(f[0]) {
			return unparsed()
		}
		e.Name, e.Kind, e.MediaType = f[1], fetch.ResourceArticle, "message/rfc822"
		if d, err := mail.ParseDate(f[3]); err == nil {
			e.ModTime = d
		}
		if len(f) >= 7 {
			if n, ok := parseNumber(f[6]); ok {
				e.Size = n
			}
		}
		raw = base(t) + url.Escape(t.group, "") + "/" + f[0]
	} else {
		var group string
		if list == "newsgroups" {
			g, _, _ := strings.Cut(line, "\t")
			if f := strings.Fields(g); len(f) > 0 {
				group = f[0]
			}
		} else if f := strings.Fields(line); len(f) > 0 {
			group = f[0]
		}
		if group == "" {
			return unparsed()
		}
		e.Name, e.Kind = group, fetch.ResourceList
		raw = base(t) + url.Escape(group, "")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return unparsed()
	}
	e.URL = u
	return e, nil
}
