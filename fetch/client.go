package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/rfc1738/fetch/url"
)

// Client dispatches requests to the Handler registered for each URL's
// scheme, after applying the safety Policy. A zero Client is valid and
// supports no scheme; schemes.Register fills one with every built-in
// handler. A Client is safe for concurrent use once its handlers are
// registered; its fields must not change while it is in use.
type Client struct {
	// Parser parses the URLs given to Fetch as strings. The zero Parser
	// is strict. A lenient one without a MapHost maps international host
	// names with IDNAHost.
	Parser url.Parser
	// Policy is the safety policy, applied to each request before its
	// handler runs and to every address dialed.
	Policy Policy
	// ConnectTimeout bounds each dial. Zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// IdleTimeout bounds each wait for a peer. Zero means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	// PerHost caps the transfers in progress to one host:port, and the
	// connections a handler keeps open there (see
	// Request.MaxConnsPerHost), idle or in use. Zero means 2; a negative
	// value means no cap. To a handler that pipelines (see Pipeliner) the
	// cap on transfers is PerHost times its Pipelining: PerHost
	// connections' worth. It is the one per-host cap: a Batch may lower
	// it for its own transfers (Batch.PerHost), never raise it.
	PerHost int
	// Trace receives the protocol trace of every request whose own Trace
	// is nil (NewTrace makes one of an io.Writer); nil traces nothing.
	Trace *Trace
	// User is used as credentials for URLs that carry none, except on hops
	// (see Request.Hop).
	User *url.Userinfo
	// TLS configures TLS for the secure schemes; nil means the defaults.
	TLS *tls.Config
	// DialContext, when set, makes every connection of every scheme
	// (HTTP's, FTP's control and data connections, Prospero's UDP, ...):
	// it is where a program adds a SOCKS proxy or a test network. It is
	// called with a resolved "ip:port" that the Policy has passed (see
	// Request.DialContext). Nil means a net.Dialer.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Resolver looks up the host names dialed, so that the Policy can
	// judge the addresses before any connection is made. Nil means
	// net.DefaultResolver.
	Resolver Resolver
	// Proxy, when set, chooses the proxy through which each request's
	// connections are made (see ProxyAll, ProxyFromEnvironment): every
	// TCP connection of every scheme, FTP's data connections included,
	// goes through it as a SOCKS5 CONNECT or an HTTP CONNECT tunnel; HTTP
	// sends an http URL's request to an HTTP proxy in absolute form.
	// Nil means no proxy, except that the HTTP handler then keeps to its
	// own (by default the environment's HTTP_PROXY, HTTPS_PROXY and
	// NO_PROXY). UDP (Prospero) cannot go through a proxy and fails
	// with Kind Unsupported.
	Proxy ProxyFunc
	// IPVersion, when 4 or 6, restricts every connection to IPv4 or
	// IPv6 addresses. Zero means both.
	IPVersion int
	// Resolve gives the addresses to use for a "host:port" (or
	// "host:*", any port) instead of resolving host: curl's --resolve.
	// The policy judges them as it judges resolved ones.
	Resolve map[string][]netip.Addr
	// ConnectTo maps a "host:port" to the "host:port" connected to in
	// its place, the URL (the Host field, the TLS server name) unchanged:
	// curl's --connect-to. A key "host:" matches any port, ":port" any
	// host, and ":" every address; an empty host or port in the value
	// keeps the original's.
	ConnectTo map[string]string
	// FallbackDelay is how long a connection attempt to one of a name's
	// addresses runs before the next address is tried beside it (Happy
	// Eyeballs, RFC 8305: IPv6 first, the families interleaved). Zero
	// means DefaultFallbackDelay; a negative value tries the addresses
	// one after another.
	FallbackDelay time.Duration
	// MaxRedirects is the number of redirects and referrals Do and List
	// follow for one request. Zero means 10; a negative value follows
	// none. A hop beyond the limit fails with Kind Protocol, naming the
	// limit and the target.
	MaxRedirects int
	// CheckRedirect, when set, is called before each redirect or referral
	// is followed. next is the request the hop will make (its URL is the
	// target); via holds the Resources that led to it, the first first,
	// the last being the redirect just received, its Body still open and
	// readable. An error stops the fetch: the Client closes the last
	// Body and returns the error, as an *Error naming the URL that
	// redirected; ErrUseLastResponse instead makes Do return the last
	// redirect itself, its Body open, with the earlier ones in Via. The
	// hop limit, the Policy and the hop rules apply whatever it says.
	CheckRedirect func(next *Request, via []*Resource) error
	// Jar keeps cookies for the schemes that carry them (HTTP), for
	// requests whose own Jar is nil: each exchange sends the jar's
	// cookies and stores those its reply sets, so a cookie set by a
	// redirect goes with the next hop. Nil keeps none.
	Jar http.CookieJar

	mu       sync.Mutex
	handlers map[string]Handler
	hosts    map[slotKey]*slots
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

// Replace makes h the handler for scheme in place of the one registered
// before, which it returns (nil when there was none): how a program puts a
// handler configured its own way in place of the default that
// schemes.Register gave the scheme. A handler that serves several schemes
// (http and https) is replaced in each, with one handler, so that they
// keep sharing its connections. Requests already in progress finish with
// the old handler; closing it, if it holds connections, is the caller's
// affair. Replace panics if h is nil.
func (c *Client) Replace(scheme string, h Handler) (old Handler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h == nil {
		panic("fetch: Replace with a nil handler for " + scheme)
	}
	if c.handlers == nil {
		c.handlers = make(map[string]Handler)
	}
	old = c.handlers[scheme]
	c.handlers[scheme] = h
	return old
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
	u, err := c.parser().Parse(rawURL)
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

// Do fetches one request. It checks the policy, waits for a per-host slot,
// and calls the handler with a copy of req whose zero fields it has filled
// from the Client's settings: Do never modifies req, which may be reused
// or given to another Client. When the handler answers with a redirect or
// a referral, Do follows it (see MaxRedirects and CheckRedirect) and
// returns the resource at its end, with the hops in Via. Every error is an
// *Error naming the redacted URL; errors read from the Body are too. The
// slot is released when the Body is closed.
func (c *Client) Do(ctx context.Context, req *Request) (*Resource, error) {
	h, cl, err := c.prepare("fetch", req)
	if err != nil {
		return nil, err
	}
	res, err := c.once(ctx, h, cl)
	if err != nil || res.Redirect == nil {
		return res, err
	}
	hops := hops{op: "fetch"}
	for {
		var next *Request
		next, err = hops.next(c, &cl.r, res)
		if err != nil || next == nil {
			return hops.end(res, err)
		}
		h, cl, err = c.prepare("fetch", next)
		if err != nil {
			return hops.end(nil, err)
		}
		if res, err = c.once(ctx, h, cl); err != nil || res.Redirect == nil {
			return hops.end(res, err)
		}
	}
}

// once makes the one exchange of cl's request with h: it takes the
// request's per-host slot, calls the handler, and wraps the Body so that
// closing it releases the slot.
func (c *Client) once(ctx context.Context, h Handler, cl *call) (*Resource, error) {
	r := &cl.r
	slot, err := c.hold(ctx, h, cl)
	if err != nil {
		return nil, c.decorate("fetch", r.URL, err)
	}
	res, err := h.Fetch(ctx, r)
	if err != nil {
		slot.release()
		return nil, c.decorate("fetch", r.URL, err)
	}
	if res == nil || res.Body == nil {
		slot.release()
		return nil, c.decorate("fetch", r.URL, Errorf(Other, "the %s handler broke its contract: no resource or no body, and no error", r.URL.Scheme))
	}
	if res.URL == nil {
		res.URL = r.URL
	}
	res.FromPublic = res.FromPublic || r.chain.reachedPublic()
	res.Body = wrapBody(res.Body, slot, c, r.URL)
	return res, nil
}

// List lists the directory, menu or group req names, through the
// handler's Lister, with the same policy, defaults, per-host slot and
// following of redirects and referrals as Do; the slot is released when
// the Listing is closed.
func (c *Client) List(ctx context.Context, req *Request) (*Listing, error) {
	h, cl, err := c.prepare("list", req)
	if err != nil {
		return nil, err
	}
	hops := hops{op: "list"}
	for {
		l, err := c.listOnce(ctx, h, cl)
		if err != nil || l.redirect == nil {
			return l, err
		}
		res := *l.redirect
		res.Body = listingBody{l} // closing the redirect closes the Listing, and frees its slot
		next, err := hops.next(c, &cl.r, &res)
		if err != nil || next == nil {
			if err == nil {
				err = c.decorate("list", res.URL, Errorf(Unsupported, "the listing of %s is a redirect to %s, which CheckRedirect left unfollowed", res.URL.Redacted(), res.Redirect.Redacted()))
			}
			l.Close()
			return nil, err
		}
		if h, cl, err = c.prepare("list", next); err != nil {
			return nil, err
		}
	}
}

// listOnce makes the one exchange of a listing, as once does for Do.
func (c *Client) listOnce(ctx context.Context, h Handler, cl *call) (*Listing, error) {
	r := &cl.r
	lh, ok := h.(Lister)
	if !ok {
		return nil, c.decorate("list", r.URL, Errorf(Unsupported, "the %s handler cannot list entries", r.URL.Scheme))
	}
	slot, err := c.hold(ctx, h, cl)
	if err != nil {
		return nil, c.decorate("list", r.URL, err)
	}
	l, err := lh.List(ctx, r)
	if err != nil {
		slot.release()
		return nil, c.decorate("list", r.URL, err)
	}
	if l == nil {
		slot.release()
		return nil, c.decorate("list", r.URL, Errorf(Other, "the %s handler broke its contract: no listing and no error", r.URL.Scheme))
	}
	u := r.URL
	l.decorate = func(op string, err error) error { return c.decorate(op, u, err) }
	l.release = slot.release
	if l.redirect != nil && l.redirect.URL == nil {
		l.redirect.URL = u
	}
	return l, nil
}

// Plan returns the protocol lines the request means, without touching the
// network, from the handler's Planner.
func (c *Client) Plan(req *Request) ([]string, error) {
	h, cl, err := c.prepare("plan", req)
	if err != nil {
		return nil, err
	}
	r := &cl.r
	p, ok := h.(Planner)
	if !ok {
		return nil, c.decorate("plan", r.URL, Errorf(Unsupported, "the %s handler cannot plan without connecting", r.URL.Scheme))
	}
	lines, err := p.Plan(r)
	if err != nil {
		return nil, c.decorate("plan", r.URL, err)
	}
	return lines, nil
}

// call is the Client's copy of a request, the one its handler gets, with
// what belongs to that copy alone, in one allocation: the chain it starts
// (a hop shares its first request's instead) and the slot it holds.
type call struct {
	r     Request
	chain chain
	held  heldSlot
}

// prepare finds req's handler, applies the policy, and returns the call
// whose request the handler gets.
func (c *Client) prepare(op string, req *Request) (Handler, *call, error) {
	if req == nil || req.URL == nil {
		return nil, nil, &Error{Op: op, Kind: Usage, Err: errors.New("request without a URL")}
	}
	u := req.URL
	if err := c.Policy.Check(u); err != nil {
		return nil, nil, c.decorate(op, u, err)
	}
	h, ok := c.Handler(u.Scheme)
	if !ok {
		s, known := url.LookupScheme(u.Scheme)
		switch {
		case !known:
			return nil, nil, c.decorate(op, u, Errorf(Unsupported, "unknown scheme %q", u.Scheme))
		case !s.Data:
			return nil, nil, c.decorate(op, u, Errorf(Unsupported, "%s designates a service, not a data object, and no handler is registered for it", u.Scheme))
		default:
			return nil, nil, c.decorate(op, u, Errorf(Unsupported, "scheme %q is not supported by this client", u.Scheme))
		}
	}
	cl := &call{r: *req}
	r := &cl.r
	if r.User == nil && !r.Hop {
		r.User = c.User
	}
	if err := checkUser(r.User); err != nil {
		return nil, nil, c.decorate(op, u, err)
	}
	if r.ConnectTimeout == 0 {
		r.ConnectTimeout = c.ConnectTimeout
	}
	if r.IdleTimeout == 0 {
		r.IdleTimeout = c.IdleTimeout
	}
	if r.TLS == nil {
		r.TLS = c.TLS
	}
	if r.Jar == nil {
		r.Jar = c.Jar
	}
	if r.Trace == nil {
		r.Trace = c.Trace
	}
	r.policy = c.Policy
	r.dialer = c.DialContext
	r.resolver = c.Resolver
	r.net = c.netOpts()
	r.perHost = c.PerHost
	if r.chain == nil {
		r.chain = &cl.chain
	}
	return h, cl, nil
}

// decorate returns err as an *Error carrying op and the redacted URL,
// keeping the handler's Kind (a canceled context is always Canceled).
func (c *Client) decorate(op string, u *url.URL, err error) error {
	k := KindOf(err)
	var fe *Error
	if errors.As(err, &fe) {
		if fe.URL != "" && fe.Kind == k {
			return err
		}
		if fe.URL != "" {
			return &Error{Op: fe.Op, URL: fe.URL, Kind: k, Err: fe.Err}
		}
		return &Error{Op: op, URL: u.Redacted(), Kind: k, Err: fe.Err}
	}
	return &Error{Op: op, URL: u.Redacted(), Kind: k, Err: err}
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
