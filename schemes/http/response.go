package http

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// errClosed is the cause with which a request's context is cancelled once
// its hop is over.
var errClosed = errors.New("request finished")

// errNoTotal is what resource returns for a 416 to a resume that does not
// say the resource's size.
var errNoTotal = errors.New("416 without the size")

// statusLine returns the reply's status line, such as "HTTP/1.1 404 Not
// Found".
// Control characters in the reason phrase are escaped.
func statusLine(resp *http.Response) string {
	return fetch.Sanitize(resp.Proto + " " + resp.Status)
}

// finalError returns an error of Kind Protocol for a reply that cannot be
// the final answer to a GET or HEAD: a status below 100, which no version
// of HTTP defines (a "099" must not pass for an interim reply, nor for a
// final one whose body would then be taken as the resource), and 101
// Switching Protocols, which fetch never asks for (no Upgrade is sent), so
// that what follows it is not HTTP. It returns nil for any other status.
func finalError(resp *http.Response) error {
	switch code := resp.StatusCode; {
	case code < 100:
		return fetch.Errorf(fetch.Protocol, "malformed reply: status %03d is below 100 (%s)", code, statusLine(resp))
	case code == http.StatusSwitchingProtocols:
		return fetch.Errorf(fetch.Protocol, "the server switched protocols (%s), though no upgrade was asked for", statusLine(resp))
	}
	return nil
}

// statusError returns the error a reply's status means, or nil for a
// status below 400 other than 304: 304 is NotModified (the answer to a
// conditional request); 404 and 410 are NotFound; 401, 403 and 407 are
// Auth; 408 and 504 are Timeout; 429 and 503 are Unavailable, with the
// Retry-After the server gave; any other is Other. Each holds a
// *fetch.ReplyError with the status code and reason phrase. A 416 is left
// to resource, which knows whether a resume asked for it.
func statusError(resp *http.Response) error {
	code := resp.StatusCode
	if code == http.StatusNotModified {
		return &fetch.Error{Kind: fetch.NotModified, Err: replyError(resp)}
	}
	if code < 400 || code == http.StatusRequestedRangeNotSatisfiable {
		return nil
	}
	kind := fetch.Other
	switch code {
	case http.StatusNotFound, http.StatusGone:
		kind = fetch.NotFound
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired:
		kind = fetch.Auth
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		kind = fetch.Timeout
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		kind = fetch.Unavailable
	}
	return &fetch.Error{Kind: kind, Err: replyError(resp)}
}

// replyError returns the *fetch.ReplyError of a reply, wrapped so that its
// message reads "server replied HTTP/1.1 404 Not Found".
func replyError(resp *http.Response) error {
	re := &fetch.ReplyError{
		Code:       resp.StatusCode,
		Text:       strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode))),
		RetryAfter: retryAfter(field(resp.Header, "Retry-After"), time.Now()),
		Transient:  transientStatus(resp.StatusCode),
	}
	se := &statusErr{proto: resp.Proto, re: re}
	if resp.StatusCode == http.StatusUnauthorized {
		se.challenges = resp.Header.Values("Www-Authenticate")
	}
	return se
}

// transientStatus reports whether a status says the failure may pass:
// 408, 429, 500, 502, 503 and 504, the statuses curl's --retry retries.
func transientStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// statusErr is a reply whose status is an error.
type statusErr struct {
	proto string
	re    *fetch.ReplyError
	// challenges are a 401's WWW-Authenticate values.
	challenges []string
}

func (e *statusErr) Error() string { return "server replied " + e.proto + " " + e.re.Error() }
func (e *statusErr) Unwrap() error { return e.re }

// isStatus reports whether err is a reply with the status code.
func isStatus(err error, code int) bool {
	var re *fetch.ReplyError
	return errors.As(err, &re) && re.Code == code
}

// retryAfter parses a Retry-After value, delay-seconds or an HTTP date
// (RFC 9110 §10.2.3), as a duration from now; 0 when absent, malformed or
// past. It is capped at a day.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		d = time.Duration(min(n, 86400)) * time.Second
	} else if t, err := parseTime(v); err == nil {
		d = t.Sub(now)
	}
	return max(0, min(d, 24*time.Hour))
}

// field returns the first value of the header field key, which must be in
// canonical form ("Etag", not "ETag"): http.Header.Get without
// canonicalizing the key on each call. Every reply's header has its keys
// in canonical form, from net/http or readResponse.
func field(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// resource builds the Resource for a successful reply; Body is left nil
// for the caller to fill, except for a resume that finds nothing left to
// send, whose Body is empty.
// redirect returns the Resource of a redirect to next: the reply's status
// and header fields, its body still to be set.
func redirect(u *url.URL, resp *http.Response, next *url.URL) *fetch.Resource {
	res := replyResource(u, resp)
	res.Redirect = next
	return res
}

// replyResource returns the Resource a reply is, its status, header
// fields, size and media type, its body still to be set.
func replyResource(u *url.URL, resp *http.Response) *fetch.Resource {
	res := &fetch.Resource{
		URL:    u,
		Kind:   fetch.ResourceFile,
		Size:   resp.ContentLength,
		Header: resp.Header,
		Status: resp.StatusCode,
		Extra:  map[string]string{fetch.ExtraHTTPStatus: fetch.Sanitize(resp.Status), fetch.ExtraHTTPVersion: resp.Proto},
	}
	if res.Size < 0 {
		res.Size = -1
	}
	res.MediaType = mediaType(field(resp.Header, "Content-Type"))
	return res
}

func resource(u *url.URL, resp *http.Response, req *fetch.Request, offset int64) (*fetch.Resource, error) {
	res := replyResource(u, resp)
	if lm := field(resp.Header, "Last-Modified"); lm != "" {
		if t, err := parseTime(lm); err == nil {
			res.ModTime = t
		}
	}
	if et := field(resp.Header, "Etag"); et != "" && len(et) < 256 {
		res.Extra[fetch.ExtraETag] = fetch.Sanitize(et)
	}
	switch {
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		total, ok := unsatisfiedTotal(field(resp.Header, "Content-Range"))
		if offset > 0 && ok && total == offset {
			// The file is whole already: nothing is left to send.
			res.Offset, res.Size, res.Body = offset, 0, fetch.NoBody
			req.Trace.Notef("the resource is %d bytes long: nothing left to resume", total)
			return res, nil
		}
		if offset > 0 && ok {
			return nil, &fetch.Error{Kind: fetch.Other, Err: fmt.Errorf("cannot resume at byte %d: the resource has %d bytes (%w)", offset, total, replyError(resp))}
		}
		if offset > 0 {
			return nil, errNoTotal
		}
		return nil, &fetch.Error{Kind: fetch.Other, Err: replyError(resp)}
	case offset > 0 && resp.StatusCode == http.StatusPartialContent:
		first, last, total, err := parseContentRange(field(resp.Header, "Content-Range"))
		if err != nil {
			return nil, err
		}
		if first != offset {
			return nil, fetch.Errorf(fetch.Protocol, "asked for bytes from %d, server sent Content-Range %q", offset, field(resp.Header, "Content-Range"))
		}
		if res.Size >= 0 && res.Size != last-first+1 {
			return nil, fetch.Errorf(fetch.Protocol, "Content-Range %q does not match Content-Length %d", field(resp.Header, "Content-Range"), res.Size)
		}
		res.Offset = offset
		res.Size = last - first + 1
		if total >= 0 {
			res.Extra[ExtraTotalSize] = strconv.FormatInt(total, 10)
		}
	case offset > 0 && resp.StatusCode == http.StatusOK:
		req.Trace.Notef("the server ignored Range: the whole resource follows")
	case resp.StatusCode == http.StatusPartialContent:
		return nil, fetch.Errorf(fetch.Protocol, "server replied %s to a request for the whole resource", statusLine(resp))
	}
	return res, nil
}

// mediaType returns a Content-Type as the server stated it, parameters
// (charset) kept: in canonical form when it parses, else as sent, less
// surrounding space and control characters.
func mediaType(ct string) string {
	if ct == "" || plainMediaType(ct) {
		return ct // what parsing and formatting it would give
	}
	if mt, params, err := mime.ParseMediaType(ct); err == nil {
		if f := mime.FormatMediaType(mt, params); f != "" {
			return f
		}
	}
	return fetch.Sanitize(strings.TrimSpace(ct))
}

// plainMediaType reports whether ct is a lower-case type/subtype without
// parameters, the canonical form of itself.
func plainMediaType(ct string) bool {
	slash := strings.IndexByte(ct, '/')
	if slash <= 0 || slash == len(ct)-1 {
		return false
	}
	for i := 0; i < len(ct); i++ {
		c := ct[i]
		switch {
		case i == slash:
		case !tokenBytes[c] || 'A' <= c && c <= 'Z':
			return false
		}
	}
	return true
}

// parseContentRange parses "bytes FIRST-LAST/TOTAL" (TOTAL may be "*",
// returned as -1).
func parseContentRange(s string) (first, last, total int64, err error) {
	bad := fetch.Errorf(fetch.Protocol, "malformed Content-Range %q", s)
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "bytes ")
	if !ok {
		return 0, 0, 0, bad
	}
	rng, tot, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, 0, 0, bad
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, 0, 0, bad
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	total = -1
	var err3 error
	if tot != "*" {
		total, err3 = strconv.ParseInt(tot, 10, 64)
	}
	if err1 != nil || err2 != nil || err3 != nil || first < 0 || last < first || (total >= 0 && last >= total) {
		return 0, 0, 0, bad
	}
	return first, last, total, nil
}

// unsatisfiedTotal parses the "bytes */TOTAL" of a 416 reply.
func unsatisfiedTotal(s string) (int64, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "bytes */")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	return n, err == nil && n >= 0
}

// traceReply writes the status line and headers of a reply to the trace,
// headers sorted by name, passwords in a Location masked.
func traceReply(tr *fetch.Trace, resp *http.Response) {
	if tr == nil {
		return
	}
	tr.Recv(statusLine(resp))
	hdr := resp.Header
	names := make([]string, 0, len(hdr))
	for k := range hdr {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range hdr[k] {
			if k == "Location" {
				v = redactLocation(v)
			}
			tr.Recv(fetch.Sanitize(k + ": " + v))
		}
	}
}

// redactLocation shows a Location value with any password as ****.
func redactLocation(v string) string {
	if u, err := url.ParseLenient(v); err == nil && u.User != nil {
		return u.Redacted()
	}
	if i := strings.Index(v, "//"); i >= 0 {
		auth := v[i+2:]
		if j := strings.IndexAny(auth, "/?#"); j >= 0 {
			auth = auth[:j]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			if c := strings.IndexByte(auth[:at], ':'); c >= 0 {
				return v[:i+2+c+1] + "****" + v[i+2+at:]
			}
		}
	}
	return v
}

// roundTripError classifies a failure to get a reply.
func roundTripError(rctx context.Context, err error) error {
	if rctx.Err() != nil {
		return causeError(rctx)
	}
	var (
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		cve *tls.CertificateVerificationError
		rhe tls.RecordHeaderError
		oe  *net.OpError
	)
	switch {
	case errors.As(err, &ua), errors.As(err, &he), errors.As(err, &ci), errors.As(err, &cve), errors.Is(err, fetch.ErrPinnedKey):
		return fetch.Errorf(fetch.Connect, "TLS: %w", err)
	case errors.As(err, &rhe):
		return fetch.Errorf(fetch.Protocol, "TLS: the server did not answer in TLS: %v", err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fetch.Errorf(fetch.Protocol, "the server closed the connection without a reply")
	}
	if k := fetch.KindOf(err); k != fetch.Other {
		if k == fetch.Incomplete {
			k = fetch.Protocol
		}
		return fetch.Wrap(k, err)
	}
	if errors.As(err, &oe) {
		return fetch.Wrap(fetch.Connect, err)
	}
	return fetch.Wrap(fetch.Protocol, err)
}

// causeError returns the reason a request's context ended as an *Error: the
// watchdog's Timeout, a deadline's Timeout, or a cancellation.
func causeError(rctx context.Context) error {
	cause := context.Cause(rctx)
	if cause == nil {
		cause = rctx.Err()
	}
	return fetch.Wrap(fetch.KindOf(cause), cause)
}
