package http

import (
	"context"
	"crypto/tls"
	"net"
	"strconv"

	"github.com/rfc1738/fetch/fetch"
)

// h1TLS is how the h1 transport makes the connections of https requests:
// under the TLS configuration net/http's transport would use for the same
// request (see tlsConfig), offering only "http/1.1", and through the gate
// of tlsgate.go unless the request is immediate (Handler.ParallelImmediate).
// One is kept per request TLS configuration (see Handler.h1TLSFor).
type h1TLS struct {
	config *tls.Config // ServerName set per connection when it names none
	gate   *tlsGate
	// tag sets the pool keys of its connections apart from those made
	// under another configuration (see h1.roundTrip): a connection made
	// under one is never reused under another, which may verify the
	// server otherwise or send another certificate. "" for the first
	// configuration a Handler meets.
	tag string
}

// maxH1TLS bounds the h1TLS a Handler keeps, one per request TLS
// configuration, as maxTransports bounds net/http's transports.
const maxH1TLS = 8

// tlsConfig returns the configuration of a server's connections made
// under base (the request's, nil for the defaults): base's settings
// (client certificates, pinned keys, versions, roots, ServerName), with
// the session cache the Handler keeps for base (whose stores open the
// gate, see gatedCache), and the watch that notes a client certificate
// asked for and not given (see watchClientCert). Both transports use it.
func (h *Handler) tlsConfig(base *tls.Config) *tls.Config {
	c := h.sessions.Config(base, "")
	c.ClientSessionCache = gatedCache{c.ClientSessionCache, &h.gate}
	watchClientCert(c)
	return c
}

// h1TLSFor returns the h1TLS of a request's TLS configuration.
func (h *Handler) h1TLSFor(req *fetch.Request) *h1TLS {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.h1tls[req.TLS]; ok {
		return t
	}
	if h.h1tls == nil || len(h.h1tls) >= maxH1TLS {
		// A caller making a new *tls.Config per request: start over
		// rather than grow without bound.
		h.h1tls = make(map[*tls.Config]*h1TLS)
	}
	c := h.tlsConfig(req.TLS)
	c.NextProtos = []string{"http/1.1"}
	t := &h1TLS{config: c, gate: &h.gate}
	if h.h1tlsMade > 0 {
		t.tag = " (TLS configuration " + strconv.Itoa(h.h1tlsMade+1) + ")"
	}
	h.h1tlsMade++
	h.h1tls[req.TLS] = t
	return t
}

// dial connects to addr for r, whose server name is server, and makes the
// TLS handshake: the dial and the handshake together within the connect
// timeout. Unless r is immediate, the dial first goes through the gate: it
// waits while another connection to the server makes the first
// handshake (see enter). The trace gets the handshake's line as net/http's
// path writes it (see clientTrace). A server that asks for a client
// certificate that is not given notes it in ctx (see withCertAsked).
func (t *h1TLS) dial(ctx context.Context, r *h1Request, addr string) (net.Conn, error) {
	cfg := t.config
	if cfg.ServerName == "" {
		cfg = cfg.Clone()
		cfg.ServerName = r.server
	}
	var pass *gatePass
	if !r.immediate {
		pass = &gatePass{gate: t.gate, server: cfg.ServerName, cache: cfg.ClientSessionCache, timeout: r.req.EffectiveConnectTimeout()}
		r.pass.release() // an earlier dial's, for a request made again
		r.pass = pass
		ctx = withGatePass(ctx, pass)
		if err := enter(ctx); err != nil {
			return nil, err
		}
	}
	connect := r.req.EffectiveConnectTimeout()
	hctx, cancel := context.WithTimeoutCause(ctx, connect, fetch.Errorf(fetch.Timeout, "connecting to %s and the TLS handshake: nothing for %v", addr, connect))
	defer cancel()
	c, err := r.req.DialContext(hctx, "tcp", addr)
	if err != nil {
		if ctx.Err() == nil && hctx.Err() != nil {
			return nil, context.Cause(hctx)
		}
		return nil, err
	}
	tc := tls.Client(c, cfg)
	pass.handshakeStart()
	err = tc.HandshakeContext(hctx)
	if err != nil {
		c.Close()
		pass.handshakeDone(tls.ConnectionState{}, err)
		if ctx.Err() == nil && hctx.Err() != nil {
			return nil, context.Cause(hctx)
		}
		return nil, err
	}
	cs := tc.ConnectionState()
	pass.handshakeDone(cs, nil)
	if tr := r.tr; tr != nil {
		traceHandshake(tr, cs)
	}
	return tc, nil
}

// traceHandshake writes a handshake's line: the version, the cipher suite,
// the protocol agreed by ALPN, and whether the session was resumed.
func traceHandshake(tr *fetch.Trace, cs tls.ConnectionState) {
	resumed := ""
	if cs.DidResume {
		resumed = ", session resumed"
	}
	tr.Notef("%s, %s, ALPN %q%s", tls.VersionName(cs.Version), tls.CipherSuiteName(cs.CipherSuite), cs.NegotiatedProtocol, resumed)
}

// tlsProtocol names a TLS version as WARC-Protocol does ("tls/1.3"), ""
// for none or one it has no name for.
func tlsProtocol(version uint16) string {
	switch version {
	case tls.VersionTLS10:
		return "tls/1.0"
	case tls.VersionTLS11:
		return "tls/1.1"
	case tls.VersionTLS12:
		return "tls/1.2"
	case tls.VersionTLS13:
		return "tls/1.3"
	}
	return ""
}
