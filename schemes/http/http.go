// Package http implements the http scheme of RFC 1738 §3.3 and its secure
// variant https, on net/http: GET (HEAD for metadata only) with a
// User-Agent naming fetch, HTTPS with the system roots or the request's TLS
// configuration, proxies from the environment (HTTP_PROXY, HTTPS_PROXY,
// NO_PROXY), at most ten redirects, Range for resuming, and gzip accepted and
// decoded. The protocol itself is HTTP/1.1 (RFC 9112) or HTTP/2 (RFC 9113),
// whichever the server offers.
package http

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	neturl "net/url"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// DefaultUserAgent is the User-Agent sent when Handler.UserAgent is empty.
const DefaultUserAgent = "fetch/0.1.0"

// Handler fetches http and https URLs. One Handler serves both schemes and
// keeps one transport (a connection pool) for all its requests; it is safe
// for concurrent use. The zero Handler is ready to use: it follows
// redirects between http and https, refuses redirects to other schemes, and
// checks redirect targets with the strict default fetch.Policy.
type Handler struct {
	// Redirect fetches the target of a redirect: one to a scheme other
	// than http and https (ftp, gopher, ...) through that scheme's handler,
	// and one to another http or https host through this Handler again.
	// schemes.Register sets it to the Client's Do, so that each hop gets
	// the Client's policy check and a slot of the host it goes to (a hop
	// back to the host of the first request uses that request's slot).
	// Nil makes http and https hops directly and refuses redirects to other
	// schemes (Kind Unsupported). Redirects to file: and to schemes that
	// name no network data object are refused whatever it is (Kind
	// Refused).
	Redirect func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error)
	// Policy checks each redirect target before it is followed; it returns
	// an error of Kind Refused to forbid it. Nil means the strict default,
	// fetch.Policy{}.Check. schemes.Register sets it to the Client's policy.
	Policy func(u *url.URL) error
	// Raw delivers the body as the server sent it, still content-encoded
	// (gzip), instead of decoded. Default: decoded.
	Raw bool
	// UserAgent is the User-Agent header. Empty means DefaultUserAgent.
	UserAgent string
	// MaxRedirects is the number of redirects followed. Zero means 10; a
	// negative value follows none. A redirect beyond the limit is an error
	// of Kind Protocol; a 3xx reply without a Location is delivered as is.
	MaxRedirects int
	// MaxConnsPerHost caps the connections to one host:port, idle or in
	// use. Zero means 8.
	MaxConnsPerHost int
	// Pipeline is how many requests one plain HTTP/1.1 connection carries
	// at once (pipelining, RFC 9112 §9.3.2). When more requests to a host
	// are in progress than MaxConnsPerHost connections, those over the
	// cap are written on connections in use, up to Pipeline on each, and
	// their replies are read in turn, instead of each waiting for a
	// connection of its own. Zero or one means none.
	//
	// Only GET and HEAD requests are pipelined, only when they go direct
	// (not through a proxy; HTTPS goes through net/http, which does not
	// pipeline), only on a connection that has already been kept alive
	// after a reply, and never behind a reply whose body is longer than
	// 1 MiB by its Content-Length. A request whose connection closes
	// before its reply begins is made again on another. A server that
	// drops a pipelined request (it closes the connection without saying
	// so in the reply before, or does not answer within the idle timeout)
	// is pipelined to no more. A request waits for its turn as long as
	// the replies before it take to read, within its context.
	Pipeline int
	// MaxHeaderBytes bounds the size of a reply's header. Zero means 1 MiB.
	MaxHeaderBytes int64
	// Proxy chooses the proxy for a request. Nil means
	// net/http.ProxyFromEnvironment: HTTP_PROXY, HTTPS_PROXY and NO_PROXY
	// (or their lower-case forms), never for localhost.
	Proxy func(*http.Request) (*neturl.URL, error)

	mu         sync.Mutex
	transports map[*tls.Config]*http.Transport
	plain      *h1
}

var (
	_ fetch.Handler   = (*Handler)(nil)
	_ fetch.Planner   = (*Handler)(nil)
	_ fetch.Pipeliner = (*Handler)(nil)
	_ io.Closer       = (*Handler)(nil)
)

func (h *Handler) userAgent() string {
	if h.UserAgent != "" {
		return h.UserAgent
	}
	return DefaultUserAgent
}

func (h *Handler) maxRedirects() int {
	switch {
	case h.MaxRedirects == 0:
		return 10
	case h.MaxRedirects < 0:
		return 0
	}
	return h.MaxRedirects
}

// Fetch sends GET (HEAD when req.Head) for the URL, follows redirects, and
// returns the final reply's body as the Resource's Body; the caller closes
// it, Header the reply's header fields, Status its status code, and
// MediaType its Content-Type with any parameters (charset). It sends the
// handler's header fields and then req.Header's, and If-Modified-Since
// for req.IfModifiedSince. A status of 400 or more is an error holding a
// *fetch.ReplyError: 404 and 410 of Kind NotFound, 401, 403 and 407 of
// Kind Auth, 408 and 504 of Kind Timeout, 429 and 503 of Kind Unavailable
// (with the Retry-After the server gave, see fetch.RetryAfter), others of
// Kind Other, each naming the status line. A 304, the answer to a
// conditional request, is an error of Kind NotModified and moves no body.
// A redirect beyond MaxRedirects is an error of Kind Protocol naming the
// limit and the Location. With req.Offset > 0 it asks for the
// rest with Range; when the server honours it (206 with a matching
// Content-Range) the Resource's Offset is req.Offset, and when it sends the
// whole resource instead (200) Offset is 0 and Body starts at the
// beginning; when the resource is req.Offset bytes long already (416 with
// Content-Range "bytes */Offset") the Resource has that Offset, Size 0 and
// an empty Body. A body that ends before its Content-Length, or a chunked
// stream cut short, fails on Read with Kind Incomplete.
func (h *Handler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	if st := takeHop(ctx, h, req.URL); st != nil {
		return h.hop(ctx, req, st)
	}
	u := req.URL
	given, prompted := req.Credentials(), false
	max := h.maxRedirects()
	for hop := 0; ; hop++ {
		var creds *url.Userinfo
		switch {
		case u != req.URL && u.User != nil:
			creds = u.User // a redirect to a URL with its own login
		case u.Scheme == req.URL.Scheme && sameSlot(u, req.URL):
			creds = given // credentials go to the host they were given for only
		}
		var (
			res  *fetch.Resource
			next *url.URL
			err  error
		)
		switch {
		case hop == 0:
			res, next, err = h.once(ctx, req, u, creds)
		case h.Redirect != nil && !sameSlot(u, req.URL):
			res, next, err = h.viaClient(ctx, req.Follow(u), creds)
		default:
			// A hop back to the host whose slot this fetch holds.
			res, next, err = h.once(ctx, req.Follow(u), u, creds)
		}
		if err != nil && !prompted && creds != nil && creds == given && !creds.HasPassword && req.Prompt != nil && isStatus(err, http.StatusUnauthorized) {
			// "-u user" without a password: ask for it once, as curl does.
			prompted = true
			pw, perr := req.Prompt("password for "+creds.Username+" at "+u.HostPort(), true)
			if perr == nil {
				given = url.UserPassword(creds.Username, pw)
				hop--
				continue
			}
		}
		if err != nil || next == nil {
			return res, err
		}
		if hop >= max {
			return nil, fetch.Errorf(fetch.Protocol, "redirect to %s not followed: the redirect limit is %d", next.Redacted(), max)
		}
		req.Trace.Notef("redirect %d of at most %d: to %s", hop+1, max, next.Redacted())
		if next.Scheme != "http" && next.Scheme != "https" {
			return h.crossScheme(ctx, req, next)
		}
		if err := h.check(next); err != nil {
			return nil, err
		}
		u = next
	}
}

// sameSlot reports whether u and v name the same host:port, the address a
// fetch.Client gives per-host slots for.
func sameSlot(u, v *url.URL) bool {
	return u.Host == v.Host && u.EffectivePort() == v.EffectivePort()
}

// hopKey is the context key of a redirect hop on its way through the
// Client back to the Handler that asked for it.
type hopKey struct{}

// hopState is one redirect hop that Fetch sends through Redirect (the
// Client's Do) so that it takes the target host's slot: the Handler then
// makes that one request and reports a further redirect in next instead of
// following it.
type hopState struct {
	h     *Handler
	url   string
	creds *url.Userinfo
	taken bool
	next  *url.URL
}

// takeHop returns the hop a request is, when ctx carries one for h and
// this URL that no Fetch has taken yet.
func takeHop(ctx context.Context, h *Handler, u *url.URL) *hopState {
	st, ok := ctx.Value(hopKey{}).(*hopState)
	if !ok || st.h != h || st.taken || st.url != u.String() {
		return nil
	}
	st.taken = true
	return st
}

// viaClient makes the hop hreq through Redirect: the Resource, or the URL
// a further redirect points to.
func (h *Handler) viaClient(ctx context.Context, hreq *fetch.Request, creds *url.Userinfo) (*fetch.Resource, *url.URL, error) {
	u := hreq.URL
	st := &hopState{h: h, url: u.String(), creds: creds}
	res, err := h.Redirect(context.WithValue(ctx, hopKey{}, st), hreq)
	if err != nil {
		return nil, nil, err
	}
	if !st.taken {
		res.Body.Close()
		return nil, nil, fetch.Errorf(fetch.Other, "the redirect to %s did not come back to the http handler", u.Redacted())
	}
	if st.next != nil {
		res.Body.Close() // releases the slot
		return nil, st.next, nil
	}
	return res, nil, nil
}

// hop makes the one request of a hop sent through the Client.
func (h *Handler) hop(ctx context.Context, req *fetch.Request, st *hopState) (*fetch.Resource, error) {
	res, next, err := h.once(ctx, req, req.URL, st.creds)
	if err != nil {
		return nil, err
	}
	if next != nil {
		st.next = next
		return &fetch.Resource{URL: req.URL, Size: 0, Body: fetch.NoBody}, nil
	}
	return res, nil
}

// check applies the policy to a redirect target.
func (h *Handler) check(u *url.URL) error {
	if h.Policy != nil {
		return h.Policy(u)
	}
	return fetch.Policy{}.Check(u)
}

// crossScheme follows a redirect to a scheme other than http and https.
func (h *Handler) crossScheme(ctx context.Context, req *fetch.Request, next *url.URL) (*fetch.Resource, error) {
	s, known := url.LookupScheme(next.Scheme)
	switch {
	case next.Scheme == "file":
		return nil, fetch.Errorf(fetch.Refused, "redirect to %s refused: a network resource may not lead to a local file", next.Redacted())
	case !known:
		return nil, fetch.Errorf(fetch.Unsupported, "redirect to the unknown scheme %q", next.Scheme)
	case !s.Data:
		return nil, fetch.Errorf(fetch.Refused, "redirect to %s refused: %s names no data object to fetch", next.Redacted(), next.Scheme)
	case h.Redirect == nil:
		return nil, fetch.Errorf(fetch.Unsupported, "redirect to %s not followed: no handler for %s redirects", next.Redacted(), next.Scheme)
	}
	if err := h.check(next); err != nil {
		return nil, err
	}
	req.Trace.Notef("following the redirect to %s through its own handler", next.Redacted())
	return h.Redirect(ctx, req.Follow(next))
}

// once makes one hop: it sends the request for u and returns either the
// Resource, or (when the reply is a redirect) the URL to go to next.
func (h *Handler) once(ctx context.Context, req *fetch.Request, u *url.URL, creds *url.Userinfo) (*fetch.Resource, *url.URL, error) {
	if err := checkLine(u); err != nil {
		return nil, nil, err
	}
	method := http.MethodGet
	if req.Head {
		method = http.MethodHead
	}
	offset := req.Offset
	if req.Head || offset < 0 {
		offset = 0
	}
	hs, err := h.headers(req, u, creds, offset, req.Head)
	if err != nil {
		return nil, nil, err
	}
	// Sent only when the body is to stay encoded (Raw, or the request's
	// own field); otherwise the transport sends it and decodes.
	ownEncoding := h.Raw || req.Header.Get("Accept-Encoding") != ""
	rt, err := h.route(req, u)
	if err != nil {
		return nil, nil, err
	}
	if rt.direct {
		return h.direct(ctx, req, u, creds, method, offset, hs, ownEncoding)
	}
	proxy := rt.proxy
	uri := requestURI(u)
	nu := netURL(u)
	hreq := &http.Request{
		Method:     method,
		URL:        nu,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     make(http.Header),
		Host:       nu.Host,
	}
	rctx, cancel := context.WithCancelCause(ctx)
	wd := newWatchdog(cancel)
	w := hopWaits{wd: wd, cancel: cancel}
	line := func(proto string) string {
		target := uri
		if proxy != nil && u.Scheme == "http" {
			target = u.Scheme + "://" + hostHeader(u) + uri
		}
		return method + " " + target + " " + proto
	}
	hreq = hreq.WithContext(httptrace.WithClientTrace(withRoute(rctx, rt), clientTrace(wd, req, req.Trace, line)))
	for _, hd := range hs {
		switch hd.name {
		case "Host":
		case "Accept-Encoding":
			if ownEncoding {
				hreq.Header.Set(hd.name, hd.value)
			}
		default:
			hreq.Header.Add(hd.name, hd.value)
		}
	}
	resp, err := h.transport(req.TLS).RoundTrip(hreq)
	wd.gotReply()
	if err != nil {
		err = roundTripError(rctx, err)
		w.end()
		return nil, nil, err
	}
	return h.reply(rctx, req, u, creds, offset, resp, w)
}

// direct makes a hop over the h1 transport: plain HTTP/1.1, to no proxy.
func (h *Handler) direct(ctx context.Context, req *fetch.Request, u *url.URL, creds *url.Userinfo, method string, offset int64, hs []header, ownEncoding bool) (*fetch.Resource, *url.URL, error) {
	r := &h1Request{
		req:    req,
		method: method,
		path:   u.Path,
		host:   hs[0].value,
		gz:     method != http.MethodHead && offset == 0 && !ownEncoding,
		idle:   idleTimeout(req),
		tr:     req.Trace,
	}
	fields := hs[:0]
	for _, hd := range hs {
		if hd.name != "Accept-Encoding" || ownEncoding {
			fields = append(fields, hd)
		}
	}
	r.fields = fields
	addr := r.host // the Host field is host:port when the URL has a port
	if u.Port == 0 {
		addr = u.HostPort()
	}
	resp, err := h.h1Transport().roundTrip(ctx, r, addr)
	if err != nil {
		return nil, nil, roundTripError(ctx, err)
	}
	return h.reply(ctx, req, u, creds, offset, resp, hopWaits{})
}

// hopWaits bounds the waits of a hop made on net/http's transport: the
// watchdog, and the cancel of the hop's context. It is zero for the h1
// transport, whose connection's deadlines bound its waits.
type hopWaits struct {
	wd     *watchdog
	cancel context.CancelCauseFunc
}

// end stops the watchdog and cancels the hop's context.
func (w hopWaits) end() {
	if w.wd != nil {
		w.wd.stop()
		w.cancel(errClosed)
	}
}

// reply takes a hop's reply: the Resource, or the URL a redirect points
// to, or the error its status means. ctx is the hop's context.
func (h *Handler) reply(ctx context.Context, req *fetch.Request, u *url.URL, creds *url.Userinfo, offset int64, resp *http.Response, w hopWaits) (*fetch.Resource, *url.URL, error) {
	fail := func(err error) (*fetch.Resource, *url.URL, error) {
		w.end()
		return nil, nil, err
	}
	traceReply(req.Trace, resp)

	if isRedirect(resp.StatusCode) {
		if loc := field(resp.Header, "Location"); loc != "" {
			next, err := resolve(u, loc)
			drain(w, req, resp.Body)
			if err != nil {
				return fail(err)
			}
			w.end()
			return nil, next, nil
		}
	}
	if err := statusError(resp); err != nil {
		drain(w, req, resp.Body)
		return fail(err)
	}
	res, err := resource(u, resp, req, offset)
	if errors.Is(err, errNoTotal) {
		// A 416 that does not say the size (lighttpd): ask for it.
		drain(w, req, resp.Body)
		w.end()
		res, err = h.wholeAlready(ctx, req, u, creds, offset)
		return res, nil, err
	}
	if err != nil {
		drain(w, req, resp.Body)
		return fail(err)
	}
	if ce := field(resp.Header, "Content-Encoding"); ce != "" && !resp.Uncompressed {
		res.Extra[fetch.ExtraContentEncoding] = fetch.Sanitize(ce)
	}
	if req.Head || res.Body != nil {
		resp.Body.Close()
		w.end()
		if res.Body == nil {
			res.Body = fetch.NoBody
		}
		return res, nil, nil
	}
	res.Body = newBody(resp.Body, ctx, w.cancel, w.wd, req.IdleTimeout)
	return res, nil, nil
}

// plainHost reports whether the h1 transport can take a host as it is:
// ASCII (net/http would write an IDN in punycode) without an IPv6 zone.
func plainHost(host string) bool {
	for i := 0; i < len(host); i++ {
		if c := host[i]; c >= 0x80 || c == '%' {
			return false
		}
	}
	return true
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// resolve resolves a Location header against the URL that sent it, and
// parses the result leniently (servers send what browsers accept).
func resolve(base *url.URL, loc string) (*url.URL, error) {
	if len(loc) > 8<<10 {
		return nil, fetch.Errorf(fetch.Protocol, "the Location header is %d bytes long", len(loc))
	}
	b, err := neturl.Parse(base.Scheme + "://" + hostHeader(base) + requestURI(base))
	if err != nil {
		return nil, fetch.Errorf(fetch.Protocol, "cannot resolve the Location header against %s: %v", base.Redacted(), err)
	}
	ref, err := neturl.Parse(loc)
	if err != nil {
		return nil, fetch.Errorf(fetch.Protocol, "malformed Location header: %v", redactErr(err))
	}
	abs := b.ResolveReference(ref)
	abs.Fragment, abs.RawFragment = "", ""
	next, err := url.ParseLenient(abs.String())
	if err != nil {
		return nil, fetch.Errorf(fetch.Protocol, "malformed Location header: %v", redactErr(err))
	}
	return next, nil
}

// redactErr drops a *net/url.Error's URL, which may hold a password.
func redactErr(err error) error {
	if ue, ok := err.(*neturl.Error); ok {
		return ue.Err
	}
	return err
}

// drain reads a little of a body that is not delivered, within the idle
// timeout, so that its connection may be reused, and closes it.
func drain(w hopWaits, req *fetch.Request, rc io.ReadCloser) {
	if w.wd != nil {
		w.wd.arm(idleTimeout(req), "discarding a reply body")
	} else if hb := h1BodyOf(rc); hb != nil {
		hb.drainUntil()
	}
	io.CopyN(io.Discard, rc, 64<<10)
	if w.wd != nil {
		w.wd.disarm()
	}
	rc.Close()
}

func idleTimeout(req *fetch.Request) time.Duration {
	if req.IdleTimeout > 0 {
		return req.IdleTimeout
	}
	return 60 * time.Second
}

// wholeAlready answers a resume at offset that the server refused with a
// 416 not saying the resource's size: it asks for the size with HEAD.
// When the resource is offset bytes long, nothing is left to send and the
// Resource is the one a 416 with "bytes */offset" gives; otherwise it is
// an error naming both sizes.
func (h *Handler) wholeAlready(ctx context.Context, req *fetch.Request, u *url.URL, creds *url.Userinfo, offset int64) (*fetch.Resource, error) {
	req.Trace.Notef("the server refused the range without saying the size: asking for it with HEAD")
	head := *req
	head.Head, head.Offset = true, 0
	res, next, err := h.once(ctx, &head, u, creds)
	switch {
	case err != nil:
		return nil, err
	case next != nil:
		return nil, fetch.Errorf(fetch.Other, "cannot resume at byte %d: the server refused the range (416), and a HEAD request is redirected", offset)
	case res.Size < 0:
		return nil, fetch.Errorf(fetch.Other, "cannot resume at byte %d: the server refused the range (416) and does not tell the size", offset)
	case res.Size != offset:
		return nil, fetch.Errorf(fetch.Other, "cannot resume at byte %d: the resource has %d bytes (server replied 416)", offset, res.Size)
	}
	req.Trace.Notef("the resource is %d bytes long: nothing left to resume", offset)
	res.Offset, res.Size, res.Body = offset, 0, fetch.NoBody
	res.Status = http.StatusRequestedRangeNotSatisfiable
	res.Extra[fetch.ExtraHTTPStatus] = "416 Range Not Satisfiable"
	return res, nil
}
