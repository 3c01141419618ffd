package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rfc1738/fetch/url"
)

// Client dispatches requests to the Handler registered for each URL's
// scheme, after applying the safety Policy. A zero Client is valid and
// supports no scheme; schemes.Register fills one with every built-in
// handler. A Client is safe for concurrent use once its handlers are
// registered.
type Client struct {
	// Parser parses the URLs given to Fetch as strings. The zero Parser
	// is strict.
	Parser url.Parser
	// Policy is the safety policy applied before any handler dials.
	Policy Policy
	// ConnectTimeout bounds each dial. Zero means 30 seconds.
	ConnectTimeout time.Duration
	// IdleTimeout bounds each wait for a peer. Zero means 60 seconds.
	IdleTimeout time.Duration
	// PerHost caps the transfers in progress to one host:port. Zero means
	// 2; a negative value means no cap.
	PerHost int
	// Trace receives the protocol trace of every request; nil traces
	// nothing.
	Trace io.Writer
	// User is used as credentials for URLs that carry none, except on hops
	// (see Request.Hop).
	User *url.Userinfo
	// TLS configures TLS for the secure schemes; nil means the defaults.
	TLS *tls.Config

	mu       sync.Mutex
	handlers map[string]Handler
	hosts    map[string]chan struct{}
	trace    *Trace
}

// Register makes h the handler for scheme (lower-case). It panics if h is
// nil or the scheme already has a handler: both are programmer errors.
func (c *Client) Register(scheme string, h Handler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h == nil {
		panic("fetch: Register of a nil handler for " + scheme)
	}
	if _, dup := c.handlers[scheme]; dup {
		panic("fetch: Register called twice for scheme " + scheme)
	}
	if c.handlers == nil {
		c.handlers = make(map[string]Handler)
	}
	c.handlers[scheme] = h
}

// Handler returns the handler registered for scheme.
func (c *Client) Handler(scheme string) (Handler, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.handlers[scheme]
	return h, ok
}

// Fetch parses rawURL with c.Parser and fetches it.
func (c *Client) Fetch(ctx context.Context, rawURL string) (*Resource, error) {
	u, err := c.Parser.Parse(rawURL)
	if err != nil {
		return nil, &Error{Op: "fetch", URL: redactedInput(err, rawURL), Kind: Malformed, Err: err}
	}
	return c.Do(ctx, &Request{URL: u})
}

func redactedInput(err error, raw string) string {
	var pe *url.Error
	if errors.As(err, &pe) {
		return pe.Input
	}
	return raw
}

// Do fetches one request. It checks the policy, fills the request's zero
// fields from the Client, waits for a per-host slot, and calls the handler.
// Every error is an *Error naming the redacted URL; errors read from the
// Body are too. The slot is released when the Body is closed.
func (c *Client) Do(ctx context.Context, req *Request) (*Resource, error) {
	h, err := c.prepare("fetch", req)
	if err != nil {
		return nil, err
	}
	release, err := c.acquire(ctx, req.URL)
	if err != nil {
		return nil, c.decorate("fetch", req.URL, err)
	}
	res, err := h.Fetch(ctx, req)
	if err != nil {
		release()
		return nil, c.decorate("fetch", req.URL, err)
	}
	if res == nil || res.Body == nil {
		release()
		return nil, c.decorate("fetch", req.URL, Errorf(Other, "the %s handler broke its contract: no resource or no body, and no error", req.URL.Scheme))
	}
	if res.URL == nil {
		res.URL = req.URL
	}
	res.Body = &body{rc: res.Body, release: release, c: c, u: req.URL}
	return res, nil
}

// Plan returns the protocol lines the request means, without touching the
// network, from the handler's Planner.
func (c *Client) Plan(req *Request) ([]string, error) {
	h, err := c.prepare("plan", req)
	if err != nil {
		return nil, err
	}
	p, ok := h.(Planner)
	if !ok {
		return nil, c.decorate("plan", req.URL, Errorf(Unsupported, "the %s handler cannot plan without connecting", req.URL.Scheme))
	}
	lines, err := p.Plan(req)
	if err != nil {
		return nil, c.decorate("plan", req.URL, err)
	}
	return lines, nil
}

func (c *Client) prepare(op string, req *Request) (Handler, error) {
	if req == nil || req.URL == nil {
		return nil, &Error{Op: op, Kind: Usage, Err: errors.New("request without a URL")}
	}
	u := req.URL
	if err := c.Policy.Check(u); err != nil {
		return nil, c.decorate(op, u, err)
	}
	h, ok := c.Handler(u.Scheme)
	if !ok {
		s, known := url.LookupScheme(u.Scheme)
		switch {
		case !known:
			return nil, c.decorate(op, u, Errorf(Unsupported, "unknown scheme %q", u.Scheme))
		case !s.Data:
			return nil, c.decorate(op, u, Errorf(Unsupported, "%s designates a service, not a data object, and no handler is registered for it", u.Scheme))
		default:
			return nil, c.decorate(op, u, Errorf(Unsupported, "scheme %q is not supported by this client", u.Scheme))
		}
	}
	if req.User == nil && !req.Hop {
		req.User = c.User
	}
	if req.ConnectTimeout == 0 {
		req.ConnectTimeout = c.ConnectTimeout
	}
	if req.IdleTimeout == 0 {
		req.IdleTimeout = c.IdleTimeout
	}
	if req.TLS == nil {
		req.TLS = c.TLS
	}
	if req.Trace == nil {
		c.mu.Lock()
		if c.trace == nil && c.Trace != nil {
			c.trace = NewTrace(c.Trace)
		}
		req.Trace = c.trace
		c.mu.Unlock()
	}
	return h, nil
}

// decorate returns err as an *Error carrying op and the redacted URL,
// keeping the handler's Kind or inferring one.
func (c *Client) decorate(op string, u *url.URL, err error) error {
	var fe *Error
	if errors.As(err, &fe) {
		if fe.URL != "" {
			return err
		}
		return &Error{Op: op, URL: u.Redacted(), Kind: fe.Kind, Err: fe.Err}
	}
	return &Error{Op: op, URL: u.Redacted(), Kind: KindOf(err), Err: err}
}

// acquire waits for a transfer slot to u's host:port.
func (c *Client) acquire(ctx context.Context, u *url.URL) (release func(), err error) {
	n := c.PerHost
	if n == 0 {
		n = 2
	}
	if n < 0 || u.Host == "" {
		return func() {}, nil
	}
	key := u.Scheme + "://" + u.HostPort()
	c.mu.Lock()
	if c.hosts == nil {
		c.hosts = make(map[string]chan struct{})
	}
	sem, ok := c.hosts[key]
	if !ok {
		sem = make(chan struct{}, n)
		c.hosts[key] = sem
	}
	c.mu.Unlock()
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, Wrap(KindOf(ctx.Err()), fmt.Errorf("waiting for a connection slot: %w", context.Cause(ctx)))
	}
	var once sync.Once
	return func() { once.Do(func() { <-sem }) }, nil
}

// Close closes every registered handler that holds connections (those that
// implement io.Closer) and returns the first error.
func (c *Client) Close() error {
	c.mu.Lock()
	hs := make([]Handler, 0, len(c.handlers))
	for _, h := range c.handlers {
		hs = append(hs, h)
	}
	c.mu.Unlock()
	var first error
	for _, h := range hs {
		if cl, ok := h.(io.Closer); ok {
			if err := cl.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// body decorates a handler's Body: read errors name the URL, and Close
// releases the per-host slot once.
type body struct {
	rc      io.ReadCloser
	release func()
	c       *Client
	u       *url.URL
	once    sync.Once
	cerr    error
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		err = b.c.decorate("read", b.u, err)
	}
	return n, err
}

func (b *body) Close() error {
	b.once.Do(func() {
		b.cerr = b.rc.Close()
		if b.cerr != nil {
			b.cerr = b.c.decorate("close", b.u, b.cerr)
		}
		b.release()
	})
	return b.cerr
}

// WriteTo lets io.Copy use the handler body's own WriteTo (e.g. a file's
// sendfile path) while keeping error decoration.
func (b *body) WriteTo(w io.Writer) (int64, error) {
	if wt, ok := b.rc.(io.WriterTo); ok {
		n, err := wt.WriteTo(w)
		if err != nil {
			err = b.c.decorate("read", b.u, err)
		}
		return n, err
	}
	return io.Copy(w, struct{ io.Reader }{b})
}

// Write passes writes through to a session body (telnet) that accepts them.
func (b *body) Write(p []byte) (int, error) {
	if w, ok := b.rc.(io.Writer); ok {
		return w.Write(p)
	}
	return 0, Errorf(Unsupported, "this resource does not accept writes")
}
