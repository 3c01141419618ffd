package http

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"time"
)

// h1 is the transport of plain HTTP/1.1 requests that go direct, to no
// proxy. It makes the whole exchange on the caller's goroutine: it takes
// an idle connection or dials one, writes the request in one write, reads
// the reply, and hands the connection back to its pool when the body has
// been read to its end. net/http's Transport, which serves HTTPS (HTTP/2)
// and proxies, spends four goroutine hand-offs on each request instead.
//
// It behaves as that Transport does for the requests the Handler makes:
// the header fields are written in its order, Accept-Encoding: gzip is
// added (and the body decoded) when the request sets none and is neither
// HEAD nor a Range request, 1xx replies other than 101 are skipped, the
// reply's header is bounded, a reused connection the server closed while
// idle is retried, and the httptrace hooks are called at the same points.
type h1 struct {
	pool      h1Pool
	maxHeader int64
}

// errHeaderTooLong is a read past the bound on a reply's header.
var errHeaderTooLong = errors.New("the reply's header exceeds the limit")

// aLongTimeAgo is a deadline in the past, which ends a wait on a
// connection at once.
var aLongTimeAgo = time.Unix(1, 0)

// roundTrip sends hreq, whose request-target is uri, to addr (host:port)
// and returns the reply, its body still to be read. It dials through
// dialContext with hreq's context, which carries the fetch.Request.
func (t *h1) roundTrip(hreq *http.Request, addr, uri string) (*http.Response, error) {
	ctx := hreq.Context()
	trace := httptrace.ContextClientTrace(ctx)
	gz := hreq.Method != http.MethodHead && hreq.Header.Get("Accept-Encoding") == "" && hreq.Header.Get("Range") == ""
	for attempt := 0; ; attempt++ {
		pc, reused, err := t.conn(ctx, addr)
		if err != nil {
			return nil, err
		}
		resp, err := t.exchange(ctx, pc, hreq, uri, trace, reused, gz)
		if err == nil {
			return resp, nil
		}
		var stale *staleError
		if !errors.As(err, &stale) {
			return nil, err
		}
		if !reused || ctx.Err() != nil || attempt >= t.pool.max {
			return nil, stale.err
		}
		// The server closed the connection while it was idle, as servers
		// do after their keep-alive timeout: so it did with the others
		// that idled as long. Try again on a fresh one.
		t.pool.retire(addr)
	}
}

// staleError is the failure of an exchange before any byte of the reply
// came: on a reused connection, the request is made again.
type staleError struct{ err error }

func (e *staleError) Error() string { return e.err.Error() }
func (e *staleError) Unwrap() error { return e.err }

// conn returns a connection to addr: an idle one, or one dialed now.
func (t *h1) conn(ctx context.Context, addr string) (*h1Conn, bool, error) {
	pc, reused, err := t.pool.get(ctx, addr)
	if err != nil || pc != nil {
		return pc, reused, err
	}
	c, err := dialContext(ctx, "tcp", addr)
	if err != nil {
		t.pool.free(addr)
		return nil, false, err
	}
	return t.pool.newConn(addr, c), false, nil
}

// exchange writes the request on pc and reads the reply's header. On
// success the Response's Body gives pc back when read to its end (at once
// when there is no body); on failure pc is closed, and the error is a
// *staleError when nothing of a reply came.
func (t *h1) exchange(ctx context.Context, pc *h1Conn, hreq *http.Request, uri string, trace *httptrace.ClientTrace, reused, gz bool) (*http.Response, error) {
	if trace != nil && trace.GotConn != nil {
		info := httptrace.GotConnInfo{Conn: pc.conn, Reused: reused, WasIdle: reused}
		if reused {
			info.IdleTime = time.Since(pc.since)
		}
		trace.GotConn(info)
	}
	if err := ctx.Err(); err != nil {
		pc.close()
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { pc.conn.SetDeadline(aLongTimeAgo) })
	fail := func(err error) (*http.Response, error) {
		stop()
		pc.close()
		return nil, err
	}

	pc.wbuf = appendRequest(pc.wbuf[:0], hreq, uri, gz, trace)
	_, err := pc.conn.Write(pc.wbuf)
	if trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{Err: err})
	}
	if err != nil {
		return fail(&staleError{err})
	}

	pc.lr.n = t.maxHeader
	if _, err := pc.br.Peek(1); err != nil {
		return fail(&staleError{err})
	}
	if trace != nil && trace.GotFirstResponseByte != nil {
		trace.GotFirstResponseByte()
	}
	var resp *http.Response
	for {
		resp, err = readResponse(pc.br, hreq.Method)
		if err != nil {
			if pc.lr.n <= 0 {
				err = fmt.Errorf("the reply's header exceeds %d bytes", t.maxHeader)
			}
			return fail(err)
		}
		if code := resp.StatusCode; code >= 200 || code == http.StatusSwitchingProtocols {
			break
		}
		// An informational reply (100 Continue, 103 Early Hints): the
		// reply proper follows. Its header counts against the bound too.
	}
	pc.lr.n = 1<<63 - 1

	reuse := !resp.Close && resp.StatusCode != http.StatusSwitchingProtocols
	if resp.Body == http.NoBody {
		pc.done(stop, reuse)
		return resp, nil
	}
	b := &h1Body{rc: resp.Body, pc: pc, stop: stop, reuse: reuse, left: -1}
	if len(resp.TransferEncoding) == 0 && resp.ContentLength >= 0 {
		b.left = resp.ContentLength
	}
	resp.Body = b
	if gz && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		resp.Body = &gzipBody{body: b}
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
	}
	return resp, nil
}

// done ends pc's exchange: back to the pool when reuse is set, nothing is
// left unread and no cancellation touched it; otherwise closed.
func (pc *h1Conn) done(stop func() bool, reuse bool) {
	if stop() && reuse && pc.br.Buffered() == 0 {
		pc.pool.put(pc)
		return
	}
	pc.close()
}

// reqWriteExclude are the fields written before the others, or by the
// transport alone.
func reqWriteExclude(k string) bool {
	switch k {
	case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
		return true
	}
	return false
}

// appendRequest appends the request's line and header to b, as net/http
// writes them: Host, User-Agent, the other fields sorted by name, then
// Accept-Encoding when gz is set. It calls trace's WroteHeaderField for
// each field.
func appendRequest(b []byte, hreq *http.Request, uri string, gz bool, trace *httptrace.ClientTrace) []byte {
	var wrote func(string, []string)
	if trace != nil {
		wrote = trace.WroteHeaderField
	}
	b = append(b, hreq.Method...)
	b = append(b, ' ')
	b = append(b, uri...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, hreq.Host...)
	b = append(b, "\r\n"...)
	if wrote != nil {
		wrote("Host", []string{hreq.Host})
	}
	if ua := fieldValue(hreq.Header.Get("User-Agent")); ua != "" {
		b = appendField(b, "User-Agent", ua)
		if wrote != nil {
			wrote("User-Agent", []string{ua})
		}
	}
	var names []string
	for k := range hreq.Header {
		if !reqWriteExclude(k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		vs := hreq.Header[k]
		for i, v := range vs {
			v = fieldValue(v)
			b = appendField(b, k, v)
			if v != vs[i] {
				vs = slices.Clone(vs)
				vs[i] = v
			}
		}
		if wrote != nil {
			wrote(k, vs)
		}
	}
	if gz {
		b = appendField(b, "Accept-Encoding", "gzip")
		if wrote != nil {
			wrote("Accept-Encoding", []string{"gzip"})
		}
	}
	return append(b, "\r\n"...)
}

func appendField(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, ": "...)
	b = append(b, value...)
	return append(b, "\r\n"...)
}

// fieldValue is a header value as net/http writes it: line breaks as
// spaces, leading and trailing space and tabs trimmed.
func fieldValue(v string) string {
	if strings.ContainsAny(v, "\r\n") {
		v = strings.NewReplacer("\r", " ", "\n", " ").Replace(v)
	}
	return strings.Trim(v, " \t\r\n")
}

// h1Body is a reply's body on an h1 connection: read to its end, it gives
// the connection back for reuse; closed before, it closes it.
type h1Body struct {
	rc    io.ReadCloser // the framing (Content-Length, chunked) over pc.br
	pc    *h1Conn
	stop  func() bool // stops the cancellation's hook
	reuse bool        // the reply lets the connection be reused

	left int64 // the body's length by Content-Length, -1 for other framings

	mu     sync.Mutex
	done   bool // pc is given back or closed
	closed bool
	read   int64 // bytes of the body read, by Read or spliceTo
}

func (b *h1Body) Read(p []byte) (int, error) {
	if b.isClosed() {
		return 0, errReadOnClosed
	}
	n, err := b.rc.Read(p)
	if n > 0 {
		b.mu.Lock()
		b.read += int64(n)
		b.mu.Unlock()
	}
	if err != nil {
		b.finish(err == io.EOF && b.reuse)
	}
	return n, err
}

// Close closes the connection unless the body was read to its end.
func (b *h1Body) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.finish(false)
	return nil
}

func (b *h1Body) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// finish ends the exchange once: the connection back to the pool when
// reuse is set, otherwise closed, which also ends a Read in progress.
func (b *h1Body) finish(reuse bool) {
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return
	}
	b.done = true
	b.mu.Unlock()
	b.pc.done(b.stop, reuse)
}

// errReadOnClosed is a Read after Close, as net/http reports it.
var errReadOnClosed = errors.New("http: read on closed response body")
