package http

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// h1 is the transport of HTTP/1.1 requests that go direct, or through a
// proxy's tunnel (which fetch.Request.DialContext makes): http, and https
// over TLS (see h1TLS). It makes the whole exchange on the
// caller's goroutine: it takes an idle connection or dials one (and makes
// its TLS handshake), writes the request in one write, reads
// the reply, and hands the connection back to its pool when the body has
// been read to its end. net/http's Transport, which serves HTTP/2 and
// an HTTP proxy's http requests, spends four goroutine hand-offs on each
// request instead.
//
// It behaves as that Transport does for the requests the Handler makes:
// the header fields are written in its order (the Handler's
// Accept-Encoding among them; the Handler decodes the body, see
// decodeBody, for both transports), 1xx replies other than 101 are skipped, the
// reply's header is bounded, a reused connection the server closed while
// idle is retried, and the httptrace hooks are called at the same points.
type h1 struct {
	pool      h1Pool
	maxHeader int64
}

// errHeaderTooLong is a read past the bound on a reply's header.
var errHeaderTooLong = errors.New("the reply's header exceeds the limit")

// errConnClosed is the failure of a request whose connection closed before
// its turn to read came (see h1Conn).
var errConnClosed = errors.New("the connection closed before the reply")

// h1Request is a request for the h1 transport.
type h1Request struct {
	req    *fetch.Request // dials, and judges a reused connection
	method string
	path   string   // the request-target less its leading "/" (see requestURI)
	host   string   // the Host field
	fields []header // as headers returns them
	idle   time.Duration
	tr     *fetch.Trace
	conns  int // the connections it may keep to the host (req.MaxConnsPerHost); 0: no cap
	// via sets the pool keys of connections tunnelled through a proxy
	// apart (see viaTag): "" for a direct connection.
	via string

	// For https: how its connections are made, the server's name (the
	// URL's host), whether its dials pass the gate at once
	// (Handler.ParallelImmediate), and the pass through the gate of its
	// last dial, if any (see h1TLS.dial). tls is nil for http.
	tls       *h1TLS
	server    string
	immediate bool
	pass      *gatePass

	// sent and got are the request as written and the reply's head as
	// read, and version the TLS version of the connection (0 for none),
	// kept when req.Capture asks for them.
	sent, got []byte
	version   uint16
}

// keepReply is where readResponse keeps the reply's head: nil when the
// request did not ask for it.
func (r *h1Request) keepReply() *[]byte {
	if !r.req.Capture {
		return nil
	}
	return &r.got
}

// capture returns the heads kept, for Resource.Capture.
func (r *h1Request) capture() *fetch.Capture {
	if !r.req.Capture || r.got == nil {
		return nil
	}
	return &fetch.Capture{Protocol: "http/1.1", TLS: tlsProtocol(r.version), Request: r.sent, Reply: r.got}
}

// roundTrip sends r to addr (host:port) and returns the reply, its body
// still to be read. A cancel of ctx ends any wait at once. Each wait on
// the server has a deadline on the connection, the idle timeout: a wait
// that lasts longer is an error of Kind Timeout naming it.
func (t *h1) roundTrip(ctx context.Context, r *h1Request, addr string) (*http.Response, error) {
	key := addr
	if r.tls != nil {
		key = "https://" + addr + r.tls.tag // never an http connection's, nor another configuration's
	}
	key += r.via // nor, through a proxy, a direct one's or another proxy's
	for attempt := 0; ; attempt++ {
		pc, reused, err := t.conn(ctx, r, key, addr)
		if err != nil {
			return nil, err
		}
		resp, err := t.exchange(ctx, pc, r, reused)
		if err == nil {
			return resp, nil
		}
		var stale *staleError
		if !errors.As(err, &stale) {
			return nil, err
		}
		if !reused || ctx.Err() != nil || attempt >= max(r.conns, 1)+t.pool.depth {
			return nil, stale.err
		}
		if !stale.piped {
			// The server closed the connection while it was idle, as
			// servers do after their keep-alive timeout: so it did with
			// the others that idled as long. Try again on a fresh one.
			t.pool.retire(key)
		}
	}
}

// staleError is the failure of an exchange before any byte of the reply
// came: on a reused connection, the request is made again. piped is set
// when the request waited behind another's reply (pipelining): the
// connection closed, or was dropped, before its turn.
type staleError struct {
	err   error
	piped bool
}

func (e *staleError) Error() string { return e.err.Error() }
func (e *staleError) Unwrap() error { return e.err }

// conn returns a connection of the pool's key to addr: an idle one, or one
// dialed now.
func (t *h1) conn(ctx context.Context, r *h1Request, key, addr string) (*h1Conn, bool, error) {
	// Only direct connections are pipelined (see Handler.Pipeline).
	pipe := (r.method == "GET" || r.method == "HEAD") && r.via == ""
	pc, reused, err := t.pool.get(ctx, key, r.conns, pipe, r.tr)
	if err != nil || pc != nil {
		return pc, reused, err
	}
	dctx := ctx
	if tr := r.tr; tr != nil {
		dctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			ConnectStart: func(network, addr string) { tr.Notef("connecting to %s", addr) },
			ConnectDone: func(network, addr string, err error) {
				if err == nil {
					tr.Notef("connected to %s", addr)
				}
			},
		})
	}
	var c net.Conn
	if r.tls != nil {
		c, err = r.tls.dial(dctx, r, addr)
	} else {
		c, err = r.req.DialContext(dctx, "tcp", addr)
	}
	if err != nil {
		t.pool.free(key)
		return nil, false, err
	}
	return t.pool.newConn(key, c), false, nil
}

// exchange writes the request on pc and reads the reply's header. On
// success the Response's Body ends the exchange when read to its end (at
// once when there is no body); on failure pc is closed, and the error is
// a *staleError when nothing of a reply came.
func (t *h1) exchange(ctx context.Context, pc *h1Conn, r *h1Request, reused bool) (*http.Response, error) {
	if reused {
		// A pooled connection was dialed under another request's policy:
		// judge its address for this one, and drop it before the request
		// is written when it fails.
		if err := r.req.CheckReuse(pc.conn); err != nil {
			pc.drop(false)
			return nil, fetch.Wrap(fetch.KindOf(err), err)
		}
	}
	if err := ctx.Err(); err != nil {
		pc.drop(false)
		return nil, err
	}
	fail := func(err error, what string) (*http.Response, error) {
		pc.close()
		if ctx.Err() == nil && errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fetch.Errorf(fetch.Timeout, "%s: nothing for %v", what, r.idle)
		}
		return nil, err
	}

	// The request is written in its turn among those pc carries, and its
	// reply read in the same turn: at once, or after the replies before
	// it (see h1Conn).
	pc.wmu.Lock()
	turn, ok := pc.line()
	if !ok {
		pc.wmu.Unlock()
		return nil, &staleError{err: errConnClosed, piped: true}
	}
	if tr := r.tr; tr != nil {
		switch {
		case turn != nil:
			tr.Notef("pipelining on the connection to %s", pc.conn.RemoteAddr())
		case reused:
			tr.Notef("reusing the connection to %s", pc.conn.RemoteAddr())
		}
		tr.Send(r.method + " /" + r.path + " HTTP/1.1")
	}
	if turn == nil {
		pc.watch(ctx) // a cancel ends the write too
	}
	pc.wbuf = appendRequest(pc.wbuf[:0], r)
	pc.conn.SetWriteDeadline(time.Now().Add(r.idle))
	if turn == nil && ctx.Err() != nil {
		pc.conn.SetWriteDeadline(wire.Past())
	}
	if r.req.Capture {
		r.sent = append(r.sent[:0], pc.wbuf...)
		if tc, ok := pc.conn.(*tls.Conn); ok {
			r.version = tc.ConnectionState().Version
		}
	}
	_, err := pc.conn.Write(pc.wbuf)
	pc.wmu.Unlock()
	if err != nil {
		if turn != nil {
			// Behind another request's reply: whatever broke the
			// connection, this request is made again.
			pc.close()
			return nil, &staleError{err: err, piped: true}
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fail(err, "sending the request")
		}
		return fail(&staleError{err: err}, "")
	}
	if turn != nil {
		select {
		case ok = <-turn.ch:
		case <-ctx.Done():
			if !pc.abandon(turn) && <-turn.ch {
				pc.close() // its turn came as the context ended
			}
			return nil, ctx.Err()
		}
		if !ok {
			return nil, &staleError{err: errConnClosed, piped: true}
		}
		pc.watch(ctx)
		if err := ctx.Err(); err != nil {
			pc.close()
			return nil, err
		}
	}

	pc.lr.n = t.maxHeader
	pc.lr.arm, pc.lr.keep, pc.lr.done = r.idle, false, ctx.Done()
	if _, err := pc.br.Peek(1); err != nil {
		if turn != nil && ctx.Err() == nil {
			// The server took the replies before this one and then
			// dropped the connection, or kept it and never answered:
			// it does not cope with pipelining. Pipeline to it no more,
			// and make the request again.
			t.pool.noPipeline(pc.key)
			pc.close()
			return nil, &staleError{err: err, piped: true}
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fail(err, "awaiting the reply")
		}
		return fail(&staleError{err: err}, "")
	}
	// The reply's header, once it has begun, must come whole within the
	// idle timeout: the deadline is set at the next wait, and kept.
	pc.lr.arm = r.idle
	// The body's parts, made at once: its framing by Content-Length is
	// made in it, and the Handler's body over it is too (see newBody).
	b := &h1Body{pc: pc, ctx: ctx, idle: r.idle, left: -1}
	var resp *http.Response
	for {
		var err error
		resp, err = readResponse(pc.br, r.method, &b.length, r.keepReply())
		if err != nil {
			if pc.lr.n <= 0 {
				err = fmt.Errorf("the reply's header exceeds %d bytes", t.maxHeader)
			}
			return fail(err, "reading the reply headers")
		}
		if code := resp.StatusCode; code < 100 || code >= 200 || code == http.StatusSwitchingProtocols {
			// A final reply; or one below 100, which is none and is
			// no interim reply either: the Handler refuses it (see
			// finalError), and the connection is not kept.
			break
		}
		// An informational reply (100 Continue, 103 Early Hints): the
		// reply proper follows. Its header counts against the bound too.
	}
	pc.lr.n = 1<<63 - 1
	if t.pool.depth > 1 {
		if (turn != nil || pc.isPiped()) && ctx.Err() == nil {
			if why := r.foreign(resp); why != "" {
				// The reply is not this request's: the line of replies
				// on pc is out of step. Nothing of it is delivered;
				// this request and those behind it are made again on
				// other connections, and none is pipelined there.
				t.pool.noPipeline(pc.key)
				pc.close()
				return nil, &staleError{err: fetch.Errorf(fetch.Protocol, "a reply on a pipelined connection to %s is not its request's: %s (pipelining to it stops)", pc.key, why), piped: true}
			}
		}
		pc.readingBulk(resp.ContentLength)
	}
	// Each read of the body waits at most the idle timeout.
	pc.lr.arm, pc.lr.keep = r.idle, true

	reuse := !resp.Close && resp.StatusCode >= 100 && resp.StatusCode != http.StatusSwitchingProtocols
	if resp.Body == http.NoBody {
		if err := pc.release(reuse); err != nil {
			// More came after this reply than the line asked for:
			// none of it is delivered, so the request is made again,
			// on a connection of its own.
			return nil, &staleError{err: err, piped: true}
		}
		return resp, nil
	}
	b.rc, b.reuse = resp.Body, reuse
	if len(resp.TransferEncoding) == 0 && resp.ContentLength >= 0 {
		b.left = resp.ContentLength
	}
	resp.Body = b
	return resp, nil
}

// foreign returns why resp cannot be the reply to r, or "" when it may
// be: a 206 or 416 to a request without Range, a 206 for bytes other than
// those asked for, a 304 to a request that set no condition. On a
// pipelined connection such a reply means the replies are out of step
// with their requests.
func (r *h1Request) foreign(resp *http.Response) string {
	var rng string
	cond := false
	for _, f := range r.fields {
		switch f.name {
		case "Range":
			rng = f.value
		case "If-Modified-Since", "If-None-Match", "If-Unmodified-Since", "If-Match", "If-Range":
			cond = true
		}
	}
	switch resp.StatusCode {
	case http.StatusPartialContent:
		if rng == "" {
			return "a 206 to a request for the whole resource"
		}
		first, _, _, err := parseContentRange(field(resp.Header, "Content-Range"))
		if err == nil && rng != "bytes="+strconv.FormatInt(first, 10)+"-" {
			return fmt.Sprintf("bytes from %d to a request for %s", first, rng)
		}
	case http.StatusRequestedRangeNotSatisfiable:
		if rng == "" {
			return "a 416 to a request without Range"
		}
	case http.StatusNotModified:
		if !cond {
			return "a 304 to a request without a condition"
		}
	}
	return ""
}

// watch ties pc to the cancellation of ctx: once ctx is done, every wait
// on pc ends at once. The tie lasts until pc closes or a request with
// another cancellation takes it, so that the requests of one context tie
// it once. A tie that fires later, when pc has gone on to another
// request, does nothing.
func (pc *h1Conn) watch(ctx context.Context) {
	done := ctx.Done()
	if done == pc.watched {
		return
	}
	pc.mu.Lock()
	unwatch := pc.unwatch
	pc.unwatch, pc.watched = nil, done
	if done != nil {
		pc.unwatch = context.AfterFunc(ctx, func() {
			pc.mu.Lock()
			if pc.watched == done {
				pc.conn.SetDeadline(wire.Past())
			}
			pc.mu.Unlock()
		})
	}
	pc.mu.Unlock()
	if unwatch != nil {
		unwatch()
	}
}

// isDone reports whether done is closed.
func isDone(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
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
// writes them: Host, User-Agent (its first value), the other fields
// sorted by name, each name's values in their order. It sends each field
// to the trace.
func appendRequest(b []byte, r *h1Request) []byte {
	b = append(b, r.method...)
	b = append(b, " /"...)
	b = append(b, r.path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, r.host...)
	b = append(b, "\r\n"...)
	tr := r.tr
	if tr != nil {
		traceField(tr, "Host", r.host)
	}
	// The fields to write after Host and User-Agent, sorted by name and
	// stably, as net/http's sorted map of them gives them.
	var (
		stack [16]header
		rest  = stack[:0]
		ua    = ""
		hasUA = false
	)
	for _, f := range r.fields {
		switch {
		case f.name == "User-Agent":
			if !hasUA {
				ua, hasUA = f.value, true
			}
		case reqWriteExclude(f.name):
		default:
			rest = append(rest, f)
			for i := len(rest) - 1; i > 0 && rest[i].name < rest[i-1].name; i-- {
				rest[i], rest[i-1] = rest[i-1], rest[i]
			}
		}
	}
	if ua != "" {
		// Written when set, even when it trims to nothing, as
		// net/http writes it.
		ua = fieldValue(ua)
		b = appendField(b, "User-Agent", ua)
		if tr != nil {
			traceField(tr, "User-Agent", ua)
		}
	}
	for _, f := range rest {
		v := fieldValue(f.value)
		b = appendField(b, f.name, v)
		if tr != nil {
			traceField(tr, f.name, v)
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
	if strings.IndexByte(v, '\r') < 0 && strings.IndexByte(v, '\n') < 0 {
		return trim(v) // spaces and tabs: no CR or LF to trim
	}
	v = strings.NewReplacer("\r", " ", "\n", " ").Replace(v)
	return strings.Trim(v, " \t\r\n")
}

// h1Body is a reply's body on an h1 connection: read to its end, it gives
// the connection back for reuse; closed before, it closes it.
type h1Body struct {
	rc    io.Reader // the framing (Content-Length, chunked) over pc.br
	pc    *h1Conn
	ctx   context.Context
	idle  time.Duration // the longest wait of a read
	reuse bool          // the reply lets the connection be reused

	left int64 // the body's length by Content-Length, -1 for other framings

	length lengthBody // rc, when the body is framed by Content-Length
	outer  body       // the Handler's body over this one, made with it

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
		if ferr := b.finish(err == io.EOF && b.reuse); ferr != nil && err == io.EOF {
			err = ferr // the reply ended, but more than was asked for came after it
		}
		if err != io.EOF && b.ctx.Err() == nil && errors.Is(err, os.ErrDeadlineExceeded) {
			err = fetch.Errorf(fetch.Timeout, "reading the body: nothing for %v", b.idle)
		}
	}
	return n, err
}

// h1BodyOf returns the h1Body under rc, or nil.
func h1BodyOf(rc io.Reader) *h1Body {
	switch b := rc.(type) {
	case *h1Body:
		return b
	case *decodedBody:
		return h1BodyOf(b.wire)
	}
	return nil
}

// drainUntil bounds the reads that follow, which discard the body, by one
// deadline: the idle timeout from now.
func (b *h1Body) drainUntil() {
	b.pc.lr.arm = 0
	b.pc.conn.SetReadDeadline(time.Now().Add(b.idle))
	if b.ctx.Err() != nil {
		b.pc.conn.SetReadDeadline(wire.Past())
	}
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
// reuse is set, otherwise closed, which also ends a Read in progress. Its
// error is release's, the first time.
func (b *h1Body) finish(reuse bool) error {
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return nil
	}
	b.done = true
	b.mu.Unlock()
	return b.pc.release(reuse)
}

// errReadOnClosed is a Read after Close, as net/http reports it.
var errReadOnClosed = errors.New("http: read on closed response body")
