// Package http implements the http scheme of RFC 1738 §3.3 and its secure
// variant https: GET (HEAD for metadata only) with a User-Agent naming
// fetch, HTTPS with the system roots or the request's TLS configuration,
// proxies (the Client's, or the environment's HTTP_PROXY, HTTPS_PROXY and
// NO_PROXY), Range for resuming, and gzip, br and zstd accepted and
// decoded (RFC 9110 §8.4, RFC 7932, RFC 8878). A redirect is reported, not
// followed: the Resource has its Redirect set, and the fetch.Client follows
// it.
//
// Two transports carry the requests. An http or https URL fetched over
// HTTP/1.1, direct or through a proxy's tunnel (an HTTP CONNECT or a
// SOCKS5 one, which fetch.Request.DialContext makes), goes over the
// package's own HTTP/1.1 client (RFC 9112), which makes the whole
// exchange on the caller's goroutine, is the only one that pipelines
// (Handler.Pipeline, direct connections only), and keeps the heads as they
// went over the connection (fetch.Capture), for https the decrypted
// exchange. Its https connections are made under the TLS configuration
// net/http's would have (the request's, with the Handler's session cache,
// offering only "http/1.1" by ALPN) and wait at the same gate for a
// server's first handshake (see Handler.ParallelImmediate). Everything
// else goes through net/http's Transport: https URLs when Handler.HTTP2
// offers HTTP/2 (RFC 9113), proxied or not; an http URL's absolute-form
// request to an HTTP proxy; hosts the own client cannot write as they are
// (an IDN, an IPv6 zone); and every URL when Handler.NetHTTP is set.
// net/http keeps no bytes of the heads: its Captures are Rendered. The two
// frame replies alike: the package's tests run on both.
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

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

// DefaultUserAgent is the User-Agent sent when Handler.UserAgent is empty.
const DefaultUserAgent = "fetch/0.1.0"

// Handler fetches http and https URLs. One Handler serves both schemes and
// keeps one transport (a connection pool) for all its requests; it is safe
// for concurrent use. The zero Handler is ready to use. Each Fetch is one
// exchange: a redirect is returned as a Resource whose Redirect is the
// Location, for the fetch.Client to follow.
type Handler struct {
	// Raw delivers the body as the server sent it, still content-encoded
	// (gzip, br, zstd), instead of decoded. Default: decoded.
	Raw bool
	// UserAgent is the User-Agent header. Empty means DefaultUserAgent.
	UserAgent string
	// Pipeline is how many requests one plain HTTP/1.1 connection carries
	// at once (pipelining, RFC 9112 §9.3.2). When more requests to a host
	// are in progress than the connections the request may keep there
	// (fetch.Request.MaxConnsPerHost: the Client's PerHost), those over
	// the cap are written on connections in use, up to Pipeline on each, and
	// their replies are read in turn, instead of each waiting for a
	// connection of its own. Zero or one means none.
	//
	// Only GET and HEAD requests are pipelined, only when they go over
	// the own client (direct, not through a proxy; not with NetHTTP, nor
	// over HTTP/2: net/http does not pipeline), http and https alike,
	// only on a connection that has already been kept alive
	// after a reply, and never behind a reply whose body is longer than
	// 1 MiB by its Content-Length. A request whose connection closes
	// before its reply begins is made again on another. A server that
	// drops a pipelined request (it closes the connection without saying
	// so in the reply before, or does not answer within the idle timeout)
	// is pipelined to no more. A request waits for its turn as long as
	// the replies before it take to read, within its context. Replies out
	// of step with their requests poison the connection: when more comes
	// after the last reply asked for, that reply fails with Kind Protocol
	// rather than end as whole; when a reply cannot answer its request (a
	// 206 or 416 to a request without Range, a 304 to one without a
	// condition), it is not delivered. The requests not yet answered are
	// made again on a fresh connection, and the host is pipelined to no
	// more. A reply delivered before such a sign cannot be taken back.
	Pipeline int
	// NetHTTP sends every request through net/http's Transport, as an
	// http URL's request to an HTTP proxy always goes, instead of the
	// package's own HTTP/1.1 client. Default (false): the own client, for
	// the other http requests and https requests over HTTP/1.1, direct or
	// through a proxy's tunnel; it allocates less per
	// request, is the only one that pipelines, and the only one that keeps
	// the heads as sent, so with NetHTTP set Pipeline has no effect and
	// Captures are Rendered.
	NetHTTP bool
	// HTTP2 offers HTTP/2 to https servers in the TLS handshake, and
	// speaks it to those that take it (curl's --http2), through net/http's
	// Transport. Default (false): HTTP/1.1, offering only "http/1.1", over
	// the own client when direct. A body costs less over HTTP/1.1:
	// no frames, no flow-control window to refund as it is read, no copy
	// through HTTP/2's stream buffer. Against nginx on loopback a 64 MiB
	// body took 0.80–0.84 of curl's wall time and 0.83–0.96 of its CPU
	// over HTTP/1.1, 1.08–1.14 and 1.15–1.30 over HTTP/2 (two runs of
	// bench/https.sh), and 1000 small files cost the same either way,
	// for the Client's per-host slots bound a host's transfers whichever
	// carries them.
	HTTP2 bool
	// ParallelImmediate dials every https connection at once (curl's
	// --parallel-immediate). Default (false): while a server's first
	// connection makes its TLS handshake, the connections dialed to it
	// meanwhile wait for its session, to resume it rather than each make
	// a full handshake (see tlsgate.go); they wait at most the connect
	// timeout.
	ParallelImmediate bool
	// MaxHeaderBytes bounds the size of a reply's header. Zero means 1 MiB.
	MaxHeaderBytes int64
	// Digest sends credentials (the URL's, or the request's User) by HTTP
	// Digest (RFC 7616: SHA-512-256, SHA-256 or MD5, qop auth) instead of
	// Basic: a request goes without them until the host's protection
	// space has sent a challenge, which is then answered, in a second
	// request after the first 401 and at once in later requests (a stale
	// nonce is answered anew). Default: Basic.
	Digest bool
	// BearerToken, when set, is sent as "Authorization: Bearer TOKEN"
	// (RFC 6750) with each request that has no credentials and is not a
	// hop: like fetch.Client.User, it is not lent to wherever a redirect
	// leads. Default: none.
	BearerToken string
	// Proxy chooses the proxy for a request. Nil means
	// net/http.ProxyFromEnvironment: HTTP_PROXY, HTTPS_PROXY and NO_PROXY
	// (or their lower-case forms), never for localhost.
	Proxy func(*http.Request) (*neturl.URL, error)

	mu         sync.Mutex
	transports map[transportKey]*http.Transport
	h1tls      map[*tls.Config]*h1TLS // the h1 transport's, by request TLS configuration
	h1tlsMade  int                    // the h1TLS made, for their tags
	sessions   wire.TLSSessions       // both transports' TLS session caches
	gate       tlsGate                // see tlsgate.go
	digests    digestCache
	plain      *h1
}

var (
	_ fetch.Handler    = (*Handler)(nil)
	_ fetch.Planner    = (*Handler)(nil)
	_ fetch.Pipeliner  = (*Handler)(nil)
	_ io.Closer        = (*Handler)(nil)
	_ fetch.IdleCloser = (*Handler)(nil)
)

func (h *Handler) userAgent() string {
	if h.UserAgent != "" {
		return h.UserAgent
	}
	return DefaultUserAgent
}

// Fetch sends GET (HEAD when req.Head) for the URL and returns the reply:
// its body as the Resource's Body, which the caller closes, Header its
// header fields, Status its status code, and MediaType its Content-Type
// with any parameters (charset). It sends the handler's header fields and
// then req.Header's, the cookies of req.Jar for the URL (and stores those
// the reply sets), and If-Modified-Since for req.IfModifiedSince.
//
// A redirect (301, 302, 303, 307, 308) with a Location is returned as it
// is, with the Resource's Redirect set to the Location resolved against
// the URL; a fetch.Client follows it. A status of 400 or more is an error
// holding a *fetch.ReplyError: 404 and 410 of Kind NotFound, 401, 403 and
// 407 of Kind Auth, 408 and 504 of Kind Timeout, 429 and 503 of Kind
// Unavailable (with the Retry-After the server gave, see
// fetch.RetryAfter), others of Kind Other, each naming the status line. A
// 304, the answer to a conditional request, is an error of Kind
// NotModified and moves no body. With req.Offset > 0 it asks for the rest
// with Range; when the server honours it (206 with a matching
// Content-Range) the Resource's Offset is req.Offset, and when it sends
// the whole resource instead (200) Offset is 0 and Body starts at the
// beginning; when the resource is req.Offset bytes long already (416 with
// Content-Range "bytes */Offset") the Resource has that Offset, Size 0 and
// an empty Body. A body that ends before its Content-Length, or a chunked
// stream cut short, fails on Read with Kind Incomplete.
func (h *Handler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	creds := req.Credentials()
	res, err := h.once(ctx, req, creds)
	// In Digest mode a 401 brings the challenge to answer.
	challenged := err != nil && creds != nil && h.Digest && h.digests.challenged(req.URL, err)
	if err != nil && creds != nil && !creds.HasPassword && req.Prompt != nil && isStatus(err, http.StatusUnauthorized) {
		// "-u user" without a password: ask for it once, as curl does.
		pw, perr := req.Prompt("password for "+creds.Username+" at "+req.URL.HostPort(), true)
		if perr == nil {
			res, err = h.once(ctx, req, url.UserPassword(creds.Username, pw))
		}
	} else if challenged {
		res, err = h.once(ctx, req, creds)
	}
	return res, err
}

// once makes the exchange: it sends the request for req.URL with creds
// and returns the Resource its reply is.
func (h *Handler) once(ctx context.Context, req *fetch.Request, creds *url.Userinfo) (*fetch.Resource, error) {
	u := req.URL
	if err := checkLine(u); err != nil {
		return nil, err
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
		return nil, err
	}
	rt, err := h.route(req, u)
	if err != nil {
		return nil, err
	}
	if rt.own && !h.NetHTTP && (u.Scheme == "http" || !h.HTTP2) {
		return h.direct(ctx, rt, u, creds, method, offset, hs)
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
	rctx, asked := withCertAsked(rctx)
	wd := newWatchdog(cancel)
	w := hopWaits{wd: wd, cancel: cancel, outer: ctx}
	line := func(proto string) string {
		target := uri
		if proxy != nil && u.Scheme == "http" {
			target = u.Scheme + "://" + hostHeader(u) + uri
		}
		return method + " " + target + " " + proto
	}
	t := h.transport(req)
	ct := clientTrace(wd, req, req.Trace, line)
	tctx := withRoute(rctx, rt)
	var pass *gatePass
	if u.Scheme == "https" && !h.ParallelImmediate {
		pass = h.gatePass(t, nu, req)
		pass.hook(ct)
		tctx = withGatePass(tctx, pass)
	}
	hreq = hreq.WithContext(httptrace.WithClientTrace(tctx, ct))
	for _, hd := range hs {
		switch hd.name {
		case "Host":
		default:
			hreq.Header.Add(hd.name, hd.value)
		}
	}
	resp, err := t.RoundTrip(hreq)
	pass.release()
	wd.gotReply()
	if err != nil {
		if ce := clientCertError(asked, err); ce != nil && rctx.Err() == nil {
			err = ce
		} else {
			err = roundTripError(rctx, err)
		}
		w.end()
		return nil, err
	}
	res, err := h.reply(rctx, req, u, creds, offset, resp, w)
	if err == nil && req.Capture {
		// net/http keeps no bytes of the heads: a reader renders them.
		proto := "http/1.1"
		if resp.ProtoMajor == 2 {
			proto = "h2"
		}
		res.Capture = &fetch.Capture{Protocol: proto, Rendered: true}
		if resp.TLS != nil {
			res.Capture.TLS = tlsProtocol(resp.TLS.Version)
		}
	}
	return res, err
}

// direct makes the exchange over the h1 transport: HTTP/1.1, to no proxy
// or through a tunnel (rt.via), over TLS for https.
func (h *Handler) direct(ctx context.Context, rt route, u *url.URL, creds *url.Userinfo, method string, offset int64, hs []header) (*fetch.Resource, error) {
	req := rt.ownDial
	r := &h1Request{
		req:    req,
		via:    viaTag(rt.via),
		method: method,
		path:   u.Path,
		host:   hs[0].value,
		idle:   req.EffectiveIdleTimeout(),
		tr:     req.Trace,
		conns:  req.MaxConnsPerHost(),
	}
	r.fields = hs
	addr := r.host // the Host field is host:port when the URL has a port
	if u.Port == 0 {
		addr = u.HostPort()
	}
	var asked *certAsked
	if u.Scheme == "https" {
		r.tls, r.server, r.immediate = h.h1TLSFor(req), u.Host, h.ParallelImmediate
		ctx, asked = withCertAsked(ctx)
	}
	resp, err := h.h1Transport().roundTrip(ctx, r, addr)
	r.pass.release()
	if err != nil {
		if ce := clientCertError(asked, err); ce != nil && ctx.Err() == nil {
			return nil, ce
		}
		return nil, roundTripError(ctx, err)
	}
	res, err := h.reply(ctx, req, u, creds, offset, resp, hopWaits{})
	if err == nil {
		res.Capture = r.capture()
	}
	return res, err
}

// hopWaits bounds the waits of an exchange made on net/http's transport: the
// watchdog, and the cancel of the hop's context. It is zero for the h1
// transport, whose connection's deadlines bound its waits.
type hopWaits struct {
	wd     *watchdog
	cancel context.CancelCauseFunc
	outer  context.Context // the fetch's context, which cancel does not end
}

// end stops the watchdog and cancels the hop's context.
func (w hopWaits) end() {
	if w.wd != nil {
		w.wd.stop()
		w.cancel(errClosed)
	}
}

// reply takes the exchange's reply: the Resource, a redirect's included,
// or the error its status means. ctx is the exchange's context.
func (h *Handler) reply(ctx context.Context, req *fetch.Request, u *url.URL, creds *url.Userinfo, offset int64, resp *http.Response, w hopWaits) (*fetch.Resource, error) {
	fail := func(err error) (*fetch.Resource, error) {
		w.end()
		return nil, err
	}
	traceReply(req.Trace, resp)
	if err := finalError(resp); err != nil {
		resp.Body.Close() // not drained: what follows is not a reply
		return fail(err)
	}
	storeCookies(req, u, resp)

	var res *fetch.Resource
	var err error
	if loc := field(resp.Header, "Location"); loc != "" && isRedirect(resp.StatusCode) {
		var next *url.URL
		if next, err = resolve(u, loc); err != nil {
			drain(w, req, resp.Body)
			return fail(err)
		}
		res = redirect(u, resp, next)
	} else {
		if err := statusError(resp); err != nil {
			if req.ErrorBody != nil && !req.Head && resp.StatusCode != http.StatusNotModified {
				h.decode(req, resp)
				keepErrorBody(w, req, resp.Body)
			} else {
				drain(w, req, resp.Body)
			}
			return fail(err)
		}
		h.decode(req, resp)
		res, err = resource(u, resp, req, offset)
	}
	if errors.Is(err, errNoTotal) {
		// A 416 that does not say the size (lighttpd): ask for it.
		drain(w, req, resp.Body)
		w.end()
		if w.outer != nil {
			ctx = w.outer // the exchange's own has just ended
		}
		return h.wholeAlready(ctx, req, creds, offset)
	}
	if err != nil {
		drain(w, req, resp.Body)
		return fail(err)
	}
	if ce := field(resp.Header, "Content-Encoding"); ce != "" {
		res.Extra[fetch.ExtraContentEncoding] = fetch.Sanitize(ce) // a coding left as sent
	}
	if req.Head || res.Body != nil {
		resp.Body.Close()
		w.end()
		if res.Body == nil {
			res.Body = fetch.NoBody
		}
		return res, nil
	}
	res.Body = newBody(resp.Body, ctx, w.cancel, w.wd, req.IdleTimeout)
	return res, nil
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
		w.wd.arm(req.EffectiveIdleTimeout(), "discarding a reply body")
	} else if hb := h1BodyOf(rc); hb != nil {
		hb.drainUntil()
	}
	io.CopyN(io.Discard, rc, 64<<10)
	if w.wd != nil {
		w.wd.disarm()
	}
	rc.Close()
}

// wholeAlready answers a resume at offset that the server refused with a
// 416 not saying the resource's size: it asks for the size with HEAD.
// When the resource is offset bytes long, nothing is left to send and the
// Resource is the one a 416 with "bytes */offset" gives; otherwise it is
// an error naming both sizes.
func (h *Handler) wholeAlready(ctx context.Context, req *fetch.Request, creds *url.Userinfo, offset int64) (*fetch.Resource, error) {
	req.Trace.Notef("the server refused the range without saying the size: asking for it with HEAD")
	head := *req
	head.Head, head.Offset = true, 0
	res, err := h.once(ctx, &head, creds)
	switch {
	case err != nil:
		return nil, err
	case res.Redirect != nil:
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
