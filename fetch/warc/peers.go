package warc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// peers remembers, for each host:port, the numeric address of the server
// a fetch of a URL on it first connected to, for WARC-IP-Address. The
// Client's dial hook sees only the resolved address; the fetch's context
// carries a note naming the host:port, filled by the first dial made under
// it (later dials of the same fetch may be a redirect's, to another host),
// in the manner of net/http/httptrace.
type peers struct {
	mu sync.Mutex
	m  map[string]string
}

type noteKey struct{}

// note is what a fetch's context carries: the host:port it is for, and
// whether a dial has filled it.
type note struct {
	hostport string
	once     sync.Once
}

func (p *peers) context(ctx context.Context, u *url.URL) context.Context {
	return context.WithValue(ctx, noteKey{}, &note{hostport: u.HostPort()})
}

func (p *peers) dial(next func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if next == nil {
		next = new(net.Dialer).DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		n, _ := ctx.Value(noteKey{}).(*note)
		if n == nil {
			return c, nil
		}
		ap, perr := netip.ParseAddrPort(c.RemoteAddr().String())
		if perr != nil {
			return c, nil
		}
		n.once.Do(func() {
			p.mu.Lock()
			if p.m == nil {
				p.m = make(map[string]string)
			}
			p.m[n.hostport] = ap.Addr().Unmap().String()
			p.mu.Unlock()
		})
		return c, nil
	}
}

func (p *peers) lookup(u *url.URL) string {
	if u == nil || u.Host == "" {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[u.HostPort()]
}

// Dial wraps a dial function (next; a net.Dialer's DialContext when nil)
// so that the Writer learns the numeric address of the servers fetched
// through Do, for WARC-IP-Address. Install it as the fetch.Client's
// DialContext:
//
//	c.DialContext = w.Dial(c.DialContext)
//
// Without it, records carry no WARC-IP-Address. A connection pooled across
// fetches is named by the address its first fetch reached.
func (w *Writer) Dial(next func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return w.peers.dial(next)
}

// Do fetches req with c, like c.Do, and returns the Resource with its Body
// replaced by Tee's: the fetch is recorded when the caller closes Body,
// after the redirects the Client followed to it (see writeHops).
// An http(s) reply of status 400 or more, which the Client returns as an
// error, is recorded too (see Writer.WriteErrorReply); other failed
// fetches are not.
func (w *Writer) Do(ctx context.Context, c *fetch.Client, req *fetch.Request) (*fetch.Resource, error) {
	var eb *errorBody
	if isHTTP(req.URL) && !req.Head {
		eb = &errorBody{}
		r := *req
		r.ErrorBody = eb
		r.Capture = true // the heads as they went, for the records
		if req.ErrorBody != nil {
			r.ErrorBody = io.MultiWriter(req.ErrorBody, eb)
		}
		req = &r
	}
	date := w.now()
	res, err := c.Do(w.peers.context(ctx, req.URL), req)
	if err != nil {
		var re *fetch.ReplyError
		if eb != nil && errors.As(err, &re) && re.Code >= 400 {
			if werr := w.WriteErrorReply(req, re, eb.b.Bytes(), eb.cut, date); werr != nil {
				return nil, errors.Join(err, werr)
			}
		}
		return nil, err
	}
	if err := w.writeHops(req, res); err != nil {
		res.Body.Close()
		return nil, &fetch.Error{Op: "record", URL: req.URL.Redacted(), Kind: fetch.Other, Err: err}
	}
	res.Body = w.Tee(req, res)
	return res, nil
}

// writeHops records the redirects the Client followed on the way to res
// (res.Via), each as a request record and a response record: the heads
// as they went (see heads), or as the hop's Resource holds them, and the
// body the Client kept (Do asks for captures: a body of at most
// fetch.MaxHopBody bytes is kept). A hop whose longer body the Client
// closed unread is recorded WARC-Truncated "unspecified".
func (w *Writer) writeHops(req *fetch.Request, res *fetch.Resource) error {
	for _, hop := range res.Via {
		if hop == nil || hop.URL == nil || !isHTTP(hop.URL) {
			continue
		}
		x := &Exchange{TargetURI: hop.URL.Redacted(), IPAddress: w.peers.lookup(hop.URL)}
		x.Request, x.Response, x.Protocol, x.TLS = heads(req, hop)
		switch cl := hop.Header.Get("Content-Length"); {
		case hop.Body != nil && hop.Body != fetch.NoBody:
			x.Body = hop.Body // kept by the Client: small, and whole
		case cl != "" && cl != "0":
			x.Truncated = TruncatedUnspecified
		}
		if _, _, err := w.WriteHTTP(x); err != nil {
			return err
		}
	}
	return nil
}

// maxErrorBody bounds the body of an error reply that Do records.
const maxErrorBody = 1 << 20

// errorBody keeps the first maxErrorBody bytes of an error reply's body.
type errorBody struct {
	b   bytes.Buffer
	cut bool
}

func (e *errorBody) Write(p []byte) (int, error) {
	if room := maxErrorBody - e.b.Len(); len(p) > room {
		e.b.Write(p[:max(room, 0)])
		e.cut = true
		return len(p), nil
	}
	return e.b.Write(p)
}

// WriteErrorReply records an http(s) reply of status 400 or more, which
// the Client returns as a *fetch.ReplyError, as a request record and a
// response record. The response head is its status line and the
// Content-Length of the body kept: the error does not carry the reply's
// header fields. body is the reply's
// body (Request.ErrorBody's); cut marks one that was longer than kept
// (WARC-Truncated "length").
func (w *Writer) WriteErrorReply(req *fetch.Request, re *fetch.ReplyError, body []byte, cut bool, date time.Time) error {
	// The length of the body kept, so that a reader finds it (warcio.js
	// reads no body from a head without one).
	h := http.Header{"Content-Length": {strconv.Itoa(len(body))}}
	text := fetch.Sanitize(re.Text)
	if text == "" {
		text = http.StatusText(re.Code)
	}
	x := &Exchange{
		TargetURI: req.URL.Redacted(),
		Date:      date,
		IPAddress: w.peers.lookup(req.URL),
		Request:   requestHead(req, &fetch.Resource{URL: req.URL}),
		Response:  ResponseHead("HTTP/1.1 "+strconv.Itoa(re.Code)+" "+text, h),
		Body:      bytes.NewReader(body),
	}
	if cut {
		x.Truncated = TruncatedLength
	}
	_, _, err := w.WriteHTTP(x)
	return err
}
