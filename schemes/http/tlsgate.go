package http

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptrace"
	neturl "net/url"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// maxGateServers bounds the servers a tlsGate remembers; past it, it
// forgets those whose first handshake is over.
const maxGateServers = 1024

// tlsGate holds back new connections to an https server while the first
// one makes its TLS handshake, so that they resume its session (an
// abbreviated handshake: no certificate chain sent and verified, and under
// TLS 1.2 no key exchange) instead of each making a full one: 64
// connections dialed at once would otherwise all make full handshakes
// before any session exists. curl -Z waits for its first
// connection to a host likewise. The cost is the first handshake's time,
// once per server and process, on the connections after the first.
//
// The gate of a server opens for good when the first connection's session
// is stored, when its handshake ends without one (TLS 1.2), or, under TLS
// 1.3, whose sessions come after the handshake, after as long again as the
// handshake took; when it fails; or when its request has its reply or
// ends. A connection waits at most its connect timeout.
type tlsGate struct {
	mu      sync.Mutex
	servers map[string]*gateState // by TLS server name, the session cache's key
}

type gateState struct {
	open chan struct{} // closed when the gate opens
	once sync.Once
}

func (s *gateState) release() { s.once.Do(func() { close(s.open) }) }

// gatePass is a request's way through the gate, carried in its context to
// the transport's dial and used by its trace hooks.
type gatePass struct {
	gate    *tlsGate
	server  string
	cache   tls.ClientSessionCache
	timeout time.Duration

	mu      sync.Mutex
	leads   *gateState // set when this request's dial went first
	started time.Time  // when the leading connection's handshake began
}

type gateKey struct{}

// gatePass returns the pass of a request for nu over t.
func (h *Handler) gatePass(t *http.Transport, nu *neturl.URL, req *fetch.Request) *gatePass {
	server := t.TLSClientConfig.ServerName
	if server == "" {
		server = nu.Hostname() // as the transport names the server
	}
	return &gatePass{gate: &h.gate, server: server, cache: t.TLSClientConfig.ClientSessionCache, timeout: req.EffectiveConnectTimeout()}
}

// hook adds the pass's calls to the trace hooks of its request.
func (p *gatePass) hook(ct *httptrace.ClientTrace) {
	start, done, first := ct.TLSHandshakeStart, ct.TLSHandshakeDone, ct.GotFirstResponseByte
	ct.TLSHandshakeStart = func() {
		p.handshakeStart()
		if start != nil {
			start()
		}
	}
	ct.TLSHandshakeDone = func(cs tls.ConnectionState, err error) {
		p.handshakeDone(cs, err)
		if done != nil {
			done(cs, err)
		}
	}
	ct.GotFirstResponseByte = func() {
		p.release()
		if first != nil {
			first()
		}
	}
}

// withGatePass returns ctx carrying p.
func withGatePass(ctx context.Context, p *gatePass) context.Context {
	return context.WithValue(ctx, gateKey{}, p)
}

// enter returns when the dial of ctx's request may go ahead: at once
// when the request carries no pass, a session for its server is cached,
// the server's gate is open, or the request is the first to the server
// (it then leads); else when the gate opens, ctx ends, or the connect
// timeout passes.
func enter(ctx context.Context) error {
	p, _ := ctx.Value(gateKey{}).(*gatePass)
	if p == nil {
		return nil
	}
	if cs, ok := p.cache.Get(p.server); ok && cs != nil {
		return nil
	}
	g := p.gate
	g.mu.Lock()
	s := g.servers[p.server]
	if s == nil {
		if g.servers == nil || len(g.servers) >= maxGateServers {
			g.forgetOpen()
		}
		s = &gateState{open: make(chan struct{})}
		g.servers[p.server] = s
		g.mu.Unlock()
		p.mu.Lock()
		p.leads = s
		p.mu.Unlock()
		return nil
	}
	g.mu.Unlock()
	select {
	case <-s.open:
		return nil
	default:
	}
	t := time.NewTimer(p.timeout)
	defer t.Stop()
	select {
	case <-s.open:
		return nil
	case <-t.C:
		return nil // dial anyway, with a full handshake
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// forgetOpen drops the servers whose gate is open (all of them when none
// is), and makes the map when there is none. g.mu is held.
func (g *tlsGate) forgetOpen() {
	if g.servers == nil {
		g.servers = make(map[string]*gateState)
		return
	}
	for k, s := range g.servers {
		select {
		case <-s.open:
			delete(g.servers, k)
		default:
		}
	}
	if len(g.servers) >= maxGateServers {
		for _, s := range g.servers {
			s.release()
		}
		clear(g.servers)
	}
}

// opened opens the gate of server: a session for it has been stored.
func (g *tlsGate) opened(server string) {
	g.mu.Lock()
	s := g.servers[server]
	g.mu.Unlock()
	if s != nil {
		s.release()
	}
}

// release opens the gate the request leads, if any.
func (p *gatePass) release() {
	if p == nil {
		return
	}
	p.mu.Lock()
	s := p.leads
	p.mu.Unlock()
	if s != nil {
		s.release()
	}
}

// handshakeStart records when the leading connection's handshake began.
func (p *gatePass) handshakeStart() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.started = time.Now()
	p.mu.Unlock()
}

// handshakeDone opens the gate the request leads when its handshake has
// failed or no session is to come (TLS 1.2 stores its session during the
// handshake); under TLS 1.3 it gives the session, which the server sends
// after the handshake, as long again as the handshake took.
func (p *gatePass) handshakeDone(cs tls.ConnectionState, err error) {
	if p == nil {
		return
	}
	p.mu.Lock()
	s, took := p.leads, time.Since(p.started)
	p.mu.Unlock()
	if s == nil {
		return
	}
	if err != nil || cs.Version < tls.VersionTLS13 || cs.DidResume {
		s.release()
		return
	}
	time.AfterFunc(took, s.release)
}

// gatedCache is a session cache that opens a server's gate when a session
// for it is stored.
type gatedCache struct {
	tls.ClientSessionCache
	gate *tlsGate
}

func (c gatedCache) Put(key string, cs *tls.ClientSessionState) {
	c.ClientSessionCache.Put(key, cs)
	if cs != nil {
		c.gate.opened(key)
	}
}
