package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/url"
)

// NewRoundTripper returns an http.RoundTripper that fetches requests with
// c, so that an http.Client, and any crawler built on one, can fetch the
// schemes c serves. Register it for each of them:
//
//	t := http.DefaultTransport.(*http.Transport).Clone()
//	rt := fetch.NewRoundTripper(c)
//	for _, s := range []string{"gopher", "ftp", "news", "nntp", "wais", "prospero", "file"} {
//		t.RegisterProtocol(s, rt)
//	}
//	hc := &http.Client{Transport: t}
//
// The request URL is parsed leniently (what browsers and crawlers write
// is accepted and encoded). GET and HEAD are served; other methods get 405.
// The If-Modified-Since header makes the fetch conditional (304 when
// unchanged), and a Range of the form "bytes=N-" resumes at N (206 when
// the server honoured it).
//
// A fetched resource's metadata becomes headers: Content-Length,
// Last-Modified, Content-Type (the media type, or one for the kind), and the
// protocol's own header fields (Gopher+ attributes, article headers). A
// directory, menu or list is listed with c.List and rendered as a small
// HTML page with one <a href> per entry, so that HTML crawlers follow
// them; entries that cannot be fetched by their URL alone (a menu's
// information lines, telnet sessions, gopher searches without their words)
// are plain text.
//
// A failure becomes a response with a status and the error as a text body:
// NotFound 404, Auth 401, Refused 403, Malformed and Usage 400, Unsupported
// 501, Connect, Protocol and Incomplete 502, Unavailable 503 (with
// Retry-After when the server said), Timeout 504, NotModified 304, others
// 500; the reply's code and text, when the server sent one, are in the
// Fetch-Reply header. Only a canceled request returns an error, as
// net/http's transports do.
func NewRoundTripper(c *Client) http.RoundTripper { return &roundTripper{c: c} }

type roundTripper struct{ c *Client }

var lenient = url.Parser{Lenient: true}

func (rt *roundTripper) RoundTrip(hr *http.Request) (*http.Response, error) {
	if hr.Body != nil {
		hr.Body.Close() // RoundTrip must close it, even on errors
	}
	if hr.Method != http.MethodGet && hr.Method != http.MethodHead && hr.Method != "" {
		resp := textResponse(hr, http.StatusMethodNotAllowed, hr.Method+" is not supported: only GET and HEAD\n")
		resp.Header.Set("Allow", "GET, HEAD")
		return resp, nil
	}
	u, err := lenient.Parse(hr.URL.String())
	if err != nil {
		return textResponse(hr, http.StatusBadRequest, (&Error{Op: "fetch", URL: hr.URL.Redacted(), Kind: Malformed, Err: err}).Error()+"\n"), nil
	}
	ctx := hr.Context()
	req := &Request{URL: u, Head: hr.Method == http.MethodHead, Header: hr.Header.Clone()}
	if t, err := http.ParseTime(hr.Header.Get("If-Modified-Since")); err == nil {
		req.IfModifiedSince = t
	}
	if off, ok := rangeStart(hr.Header.Get("Range")); ok && !req.Head {
		req.Offset = off
	}
	res, err := rt.c.Do(ctx, req)
	if err != nil {
		return rt.failure(ctx, hr, err)
	}
	switch res.Kind {
	case ResourceDirectory, ResourceMenu, ResourceList:
		if req.Offset == 0 {
			return rt.listing(ctx, hr, req, res)
		}
	}
	resp := newResponse(hr, http.StatusOK)
	for k, v := range res.Header {
		resp.Header[k] = v
	}
	setMeta(resp.Header, res)
	resp.ContentLength = res.Size
	if res.Size >= 0 {
		resp.Header.Set("Content-Length", strconv.FormatInt(res.Size, 10))
	}
	if req.Offset > 0 && res.Offset == req.Offset {
		resp.StatusCode, resp.Status = http.StatusPartialContent, "206 Partial Content"
		total := "*"
		if res.Size >= 0 {
			total = strconv.FormatInt(res.Offset+res.Size, 10)
		}
		last := "*"
		if res.Size > 0 {
			last = strconv.FormatInt(res.Offset+res.Size-1, 10)
		}
		resp.Header.Set("Content-Range", "bytes "+strconv.FormatInt(res.Offset, 10)+"-"+last+"/"+total)
	}
	if req.Head {
		res.Body.Close()
		resp.Body = http.NoBody
		return resp, nil
	}
	resp.Body = res.Body
	return resp, nil
}

// rangeStart reads a Range header of the form "bytes=N-".
func rangeStart(v string) (int64, bool) {
	s, ok := strings.CutPrefix(v, "bytes=")
	if !ok {
		return 0, false
	}
	n, ok := strings.CutSuffix(strings.TrimSpace(s), "-")
	if !ok {
		return 0, false
	}
	off, err := strconv.ParseInt(n, 10, 64)
	return off, err == nil && off > 0
}

// setMeta sets the headers a resource's metadata gives.
func setMeta(h http.Header, res *Resource) {
	if !res.ModTime.IsZero() {
		h.Set("Last-Modified", res.ModTime.UTC().Format(http.TimeFormat))
	}
	if ct := mediaType(res); ct != "" {
		h.Set("Content-Type", ct)
	}
}

// mediaType is the Content-Type of a resource: its media type, else one
// for its kind, else "" (net/http's clients sniff).
func mediaType(res *Resource) string {
	if res.MediaType != "" {
		return res.MediaType
	}
	switch res.Kind {
	case ResourceDirectory, ResourceList, ResourceMessage:
		return "text/plain; charset=utf-8"
	case ResourceArticle:
		return "message/rfc822"
	case ResourceMenu:
		return "application/gopher-menu"
	}
	return ""
}

// statusOf maps an error's Kind to an HTTP status.
func statusOf(k Kind) int {
	switch k {
	case NotFound:
		return http.StatusNotFound
	case Auth:
		return http.StatusUnauthorized
	case Refused:
		return http.StatusForbidden
	case Malformed, Usage:
		return http.StatusBadRequest
	case Unsupported:
		return http.StatusNotImplemented
	case Connect, Protocol, Incomplete:
		return http.StatusBadGateway
	case Unavailable:
		return http.StatusServiceUnavailable
	case Timeout:
		return http.StatusGatewayTimeout
	case NotModified:
		return http.StatusNotModified
	}
	return http.StatusInternalServerError
}

// failure turns a fetch error into a response, or returns it when the
// request was canceled.
func (rt *roundTripper) failure(ctx context.Context, hr *http.Request, err error) (*http.Response, error) {
	k := KindOf(err)
	if k == Canceled || ctx.Err() != nil {
		return nil, err
	}
	code := statusOf(k)
	var resp *http.Response
	if code == http.StatusNotModified {
		resp = newResponse(hr, code)
		resp.Body = http.NoBody
	} else {
		resp = textResponse(hr, code, err.Error()+"\n")
	}
	resp.Header.Set("Fetch-Kind", k.Error())
	var re *ReplyError
	if errors.As(err, &re) {
		resp.Header.Set("Fetch-Reply", strings.TrimSpace(strconv.Itoa(re.Code)+" "+Sanitize(collapseSpace(re.Text))))
	}
	if d, ok := RetryAfter(err); ok {
		resp.Header.Set("Retry-After", strconv.Itoa(int((d+time.Second-1)/time.Second)))
	}
	return resp, nil
}

// collapseSpace folds every run of white space in s, line ends included,
// into one space: a header value is one line.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func newResponse(hr *http.Request, code int) *http.Response {
	return &http.Response{
		Status:     strconv.Itoa(code) + " " + http.StatusText(code),
		StatusCode: code,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     make(http.Header),
		Request:    hr,
	}
}

func textResponse(hr *http.Request, code int, text string) *http.Response {
	resp := newResponse(hr, code)
	resp.Header.Set("Content-Type", "text/plain; charset=utf-8")
	resp.Header.Set("Content-Length", strconv.Itoa(len(text)))
	resp.ContentLength = int64(len(text))
	resp.Body = io.NopCloser(strings.NewReader(text))
	if hr.Method == http.MethodHead {
		resp.Body = http.NoBody
	}
	return resp
}

// listing answers a directory, menu or list with an HTML page of its
// entries, read from c.List. The page streams: it is rendered entry by
// entry as the caller reads.
func (rt *roundTripper) listing(ctx context.Context, hr *http.Request, req *Request, res *Resource) (*http.Response, error) {
	res.Body.Close()
	resp := newResponse(hr, http.StatusOK)
	setMeta(resp.Header, res)
	resp.Header.Set("Content-Type", "text/html; charset=utf-8")
	resp.ContentLength = -1
	if req.Head {
		resp.Body = http.NoBody
		return resp, nil
	}
	l, err := rt.c.List(ctx, &Request{URL: res.URL})
	if err != nil {
		return rt.failure(ctx, hr, err)
	}
	resp.Body = &htmlListing{l: l, title: res.URL.Redacted()}
	return resp, nil
}

// htmlListing renders a Listing as an HTML page, one entry at a time.
type htmlListing struct {
	l     *Listing
	title string
	buf   bytes.Buffer
	state int // 0 before the head, 1 entries, 2 after the tail
}

func (h *htmlListing) Read(p []byte) (int, error) {
	for h.buf.Len() == 0 {
		switch h.state {
		case 0:
			t := html.EscapeString(h.title)
			fmt.Fprintf(&h.buf, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body>\n<h1>%s</h1>\n<ul>\n", t, t)
			h.state = 1
		case 1:
			e, err := h.l.Next()
			if err == io.EOF {
				if n := h.l.Skipped(); n > 0 {
					fmt.Fprintf(&h.buf, "</ul>\n<p>%d entries could not be parsed.</p>\n</body></html>\n", n)
				} else {
					h.buf.WriteString("</ul>\n</body></html>\n")
				}
				h.state = 2
				continue
			}
			if err != nil {
				return 0, err
			}
			name := html.EscapeString(Sanitize(e.Name))
			if !followable(e) {
				fmt.Fprintf(&h.buf, "<li>%s</li>\n", name)
			} else {
				fmt.Fprintf(&h.buf, "<li><a href=\"%s\">%s</a></li>\n", html.EscapeString(e.URL.String()), name)
			}
		default:
			return 0, io.EOF
		}
	}
	return h.buf.Read(p)
}

func (h *htmlListing) Close() error { return h.l.Close() }

// followable reports whether an entry gets a link: it has a URL, and
// fetching it needs no more than the URL (not a session, not a gopher
// search or CSO query without its words).
func followable(e Entry) bool {
	return e.URL != nil && e.Kind != ResourceSession && !e.NeedsQuery
}
