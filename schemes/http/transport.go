package http

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptrace"
	neturl "net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// maxTransports bounds the transports a Handler keeps, one per distinct
// TLS configuration and connection cap.
const maxTransports = 8

// maxIdleConns is how many idle connections a net/http transport keeps,
// to every host together.
const maxIdleConns = 64

// transportKey is what a net/http Transport is made for: a TLS
// configuration, and the connections a request may keep to a host
// (fetch.Request.MaxConnsPerHost, the Client's per-host cap; 0: no cap).
type transportKey struct {
	tls   *tls.Config
	conns int
}

// transport returns the shared transport for a request's TLS
// configuration and connection cap. Requests from one Client carry the
// same *tls.Config (or nil) and the same cap, so in practice one transport
// serves every request: connections are reused across fetches, and
// HTTP/2 is used where the server offers it.
func (h *Handler) transport(req *fetch.Request) *http.Transport {
	tc, per := req.TLS, req.MaxConnsPerHost()
	key := transportKey{tc, per}
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.transports[key]; ok {
		return t
	}
	if h.transports == nil || len(h.transports) >= maxTransports {
		// A caller making a new *tls.Config per request: start over
		// rather than grow without bound.
		for _, t := range h.transports {
			t.CloseIdleConnections()
		}
		h.transports = make(map[transportKey]*http.Transport)
	}
	idle := per
	if per == 0 {
		idle = maxIdleConns // no cap: keep as many idle as the transport keeps in all
	}
	t := &http.Transport{
		Proxy:                  h.transportProxy,
		DialContext:            dialContext,
		ForceAttemptHTTP2:      true, // when HTTP2; see below
		DisableCompression:     true, // the Handler asks and decodes (decodeBody), for both transports
		MaxIdleConns:           maxIdleConns,
		MaxIdleConnsPerHost:    idle,
		MaxConnsPerHost:        per,
		IdleConnTimeout:        idleConnTimeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: h.maxHeaderBytes(),
		ReadBufferSize:         64 << 10,
		WriteBufferSize:        16 << 10,
	}
	// The transport's connections resume one another's TLS sessions (the
	// transport sets each connection's ServerName), and a server's first
	// connection goes alone (tlsgate.go).
	t.TLSClientConfig = h.tlsConfig(tc)
	if !h.HTTP2 {
		t.ForceAttemptHTTP2 = false
		t.Protocols = new(http.Protocols)
		t.Protocols.SetHTTP1(true)
	}
	h.transports[key] = t
	return t
}

// h1Transport returns the transport of HTTP/1.1 requests, http and https,
// that go direct or through a proxy's tunnel.
func (h *Handler) h1Transport() *h1 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.plain == nil {
		h.plain = &h1{
			pool:      h1Pool{depth: h.pipelining(), idleTime: idleConnTimeout},
			maxHeader: h.maxHeaderBytes(),
		}
	}
	return h.plain
}

// idleConnTimeout is how long a connection may idle before it is closed.
const idleConnTimeout = 90 * time.Second

// Pipelining returns the requests one connection to u's host carries at
// once: Pipeline (at least 1) for http URLs and https URLs over HTTP/1.1;
// 1 with HTTP2 for https, and with NetHTTP set, which net/http carries. It makes Handler a
// fetch.Pipeliner, so that the Client and a Batch let that many transfers
// per connection run.
func (h *Handler) Pipelining(u *url.URL) int {
	if u == nil || h.NetHTTP || !(u.Scheme == "http" || u.Scheme == "https" && !h.HTTP2) {
		return 1
	}
	return max(h.Pipeline, 1)
}

// pipelining is the depth of the h1 transport's pool.
func (h *Handler) pipelining() int { return max(h.Pipeline, 1) }

// requestKey is the context key under which a request's context carries
// the *fetch.Request it serves.
type requestKey struct{}

// withRequest returns ctx carrying req, so that the transport dials the
// request's connections through req.DialContext: the Client's dial hook,
// resolver and policy (ports, private addresses, the hop rule) then apply
// to HTTP's connections as to every other scheme's.
func withRequest(ctx context.Context, req *fetch.Request) context.Context {
	return context.WithValue(ctx, requestKey{}, req)
}

// dialContext is the transport's dialer. The transport dials with a
// context that keeps the values of the request's, so it finds the
// request there; a request made without one is held to the zero policy.
func dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	req, _ := ctx.Value(requestKey{}).(*fetch.Request)
	if req == nil {
		req = new(fetch.Request)
	}
	if err := enter(ctx); err != nil {
		return nil, err
	}
	return req.DialContext(ctx, network, addr)
}

func (h *Handler) proxyFunc() func(*http.Request) (*neturl.URL, error) {
	if h.Proxy != nil {
		return h.Proxy
	}
	return http.ProxyFromEnvironment
}

// envHTTPProxy reports whether the environment may name a proxy for http
// URLs: HTTP_PROXY or http_proxy is set. Without either,
// net/http.ProxyFromEnvironment gives no http URL a proxy. It reads the
// environment once, when net/http reads it for ProxyFromEnvironment.
var envHTTPProxy = sync.OnceValue(func() bool {
	http.ProxyFromEnvironment(&http.Request{URL: &neturl.URL{Scheme: "http", Host: "localhost"}})
	return os.Getenv("HTTP_PROXY") != "" || os.Getenv("http_proxy") != ""
})

func (h *Handler) maxHeaderBytes() int64 {
	if h.MaxHeaderBytes > 0 {
		return h.MaxHeaderBytes
	}
	return 1 << 20
}

// Close closes the idle connections of every transport. Connections in use
// close when their bodies do. The Handler stays usable.
func (h *Handler) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range h.transports {
		t.CloseIdleConnections()
	}
	if h.plain != nil {
		h.plain.pool.closeIdle()
	}
	return nil
}

// CloseIdle closes the idle HTTP/1.1 connections of the Handler's own
// client to hostport, plain and TLS (fetch.IdleCloser). Connections of
// net/http's transports (HTTP/2, proxies) are not closed: net/http cannot
// close one host's, and an HTTP/2 connection carries every request to its
// host.
func (h *Handler) CloseIdle(hostport string) {
	h.mu.Lock()
	plain := h.plain
	h.mu.Unlock()
	if plain != nil {
		plain.pool.closeIdleTo(strings.ToLower(hostport))
	}
}

// watchdog is a request's deadline for network waits: armed while the
// request waits on the peer (connecting, sending, awaiting the reply, each
// read of the body), disarmed in between, it cancels the request's context
// with a Timeout error when a wait lasts too long. It works the same over
// HTTP/1 and HTTP/2, where several requests share one connection and
// connection deadlines cannot serve.
type watchdog struct {
	mu     sync.Mutex
	timer  *time.Timer
	cancel context.CancelCauseFunc
	what   string
	d      time.Duration
	dead   bool
	// replied is set once the reply's header is in: from then on the
	// httptrace hooks no longer arm the watchdog (a dial that the
	// transport finishes in the background still calls them).
	replied bool
}

func newWatchdog(cancel context.CancelCauseFunc) *watchdog {
	w := &watchdog{cancel: cancel}
	w.timer = time.AfterFunc(time.Hour, w.fire)
	w.timer.Stop()
	return w
}

func (w *watchdog) fire() {
	w.mu.Lock()
	if w.dead {
		w.mu.Unlock()
		return
	}
	what, d := w.what, w.d
	w.mu.Unlock()
	w.cancel(fetch.Errorf(fetch.Timeout, "%s: nothing for %v", what, d))
}

// arm starts (or restarts) the deadline: d from now, for the wait named
// what.
func (w *watchdog) arm(d time.Duration, what string) {
	w.mu.Lock()
	w.what, w.d = what, d
	w.timer.Reset(d)
	w.mu.Unlock()
}

// armHook arms the deadline for a wait before the reply, unless the
// reply is already in.
func (w *watchdog) armHook(d time.Duration, what string) {
	w.mu.Lock()
	if !w.replied {
		w.what, w.d = what, d
		w.timer.Reset(d)
	}
	w.mu.Unlock()
}

// gotReply disarms the deadline and stops the hooks from arming it.
func (w *watchdog) gotReply() {
	w.mu.Lock()
	w.replied = true
	w.timer.Stop()
	w.mu.Unlock()
}

// disarm stops the deadline until the next arm.
func (w *watchdog) disarm() { w.timer.Stop() }

// stop ends the watchdog for good.
func (w *watchdog) stop() {
	w.mu.Lock()
	w.dead = true
	w.timer.Stop()
	w.mu.Unlock()
}

// clientTrace returns the httptrace hooks that arm the watchdog at each
// network wait of a hop and write the -v trace. Without a trace, the hooks
// that would only write to it are left out, and the others write nothing.
func clientTrace(w *watchdog, req *fetch.Request, tr *fetch.Trace, line func(proto string) string) *httptrace.ClientTrace {
	connect, idle := req.EffectiveConnectTimeout(), req.EffectiveIdleTimeout()
	ct := &httptrace.ClientTrace{
		DNSStart: func(i httptrace.DNSStartInfo) {
			w.armHook(connect, "resolving "+i.Host)
		},
		ConnectStart: func(network, addr string) {
			w.armHook(connect, "connecting to "+addr)
			if tr != nil {
				tr.Notef("connecting to %s", addr)
			}
		},
		TLSHandshakeStart: func() { w.armHook(connect, "TLS handshake") },
		GotConn: func(i httptrace.GotConnInfo) {
			if i.Reused {
				// A pooled connection was dialed under another request's
				// policy: judge its address for this one, and drop it
				// before the request is written when it fails.
				if err := req.CheckReuse(i.Conn); err != nil {
					w.cancel(err)
					i.Conn.Close()
					return
				}
			}
			w.armHook(idle, "sending the request")
			if tr == nil {
				return
			}
			if i.Reused {
				tr.Notef("reusing the connection to %s", i.Conn.RemoteAddr())
			}
			proto := "HTTP/1.1"
			if tc, ok := i.Conn.(*tls.Conn); ok && tc.ConnectionState().NegotiatedProtocol == "h2" {
				proto = "HTTP/2"
			}
			tr.Send(line(proto))
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			w.armHook(idle, "awaiting the reply")
		},
		GotFirstResponseByte: func() {
			w.armHook(idle, "reading the reply headers")
		},
	}
	if tr != nil {
		ct.ConnectDone = func(network, addr string, err error) {
			if err == nil {
				tr.Notef("connected to %s", addr)
			}
		}
		ct.TLSHandshakeDone = func(cs tls.ConnectionState, err error) {
			if err == nil {
				traceHandshake(tr, cs)
			}
		}
		ct.WroteHeaderField = func(key string, values []string) {
			if len(key) > 0 && key[0] == ':' && key != ":authority" {
				return // the method, path and scheme are on the request line
			}
			for _, v := range values {
				traceField(tr, key, v)
			}
		}
	}
	return ct
}

// traceField writes a request's header field to the trace, credentials
// masked.
func traceField(tr *fetch.Trace, name, value string) {
	tr.Send(fetch.Sanitize(name + ": " + mask(name, value)))
}
