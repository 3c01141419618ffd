package fetch

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	neturl "net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/proxy"

	"github.com/rfc1738/fetch/url"
)

// ProxyFunc chooses the proxy for a URL's connections: an http, https,
// socks5 or socks5h URL, or nil for none. See Client.Proxy. The URL it
// returns may be shared between calls, and must not be modified.
type ProxyFunc func(u *url.URL) (*neturl.URL, error)

// ParseProxy parses a proxy as curl's -x takes it:
// [scheme://][user:password@]host[:port]. The scheme is http (the
// default), https, socks5 (fetch resolves the target's name) or socks5h
// (the proxy does); the port defaults to 1080, or 443 for https. The
// user and password, percent-encoded, authenticate to the proxy (Basic for
// http and https proxies, RFC 1929 for SOCKS5).
func ParseProxy(s string) (*neturl.URL, error) {
	raw := s
	if !strings.Contains(s, "://") {
		raw = "http://" + s
	}
	p, err := neturl.Parse(raw)
	if err != nil {
		return nil, Errorf(Usage, "proxy %q: %w", redactProxy(s), errors.Unwrap(err))
	}
	p.Scheme = strings.ToLower(p.Scheme)
	switch p.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, Errorf(Usage, "proxy %s: the scheme %q is not one of http, https, socks5, socks5h", p.Redacted(), p.Scheme)
	}
	if p.Hostname() == "" {
		return nil, Errorf(Usage, "proxy %s: no host", p.Redacted())
	}
	if (p.Path != "" && p.Path != "/") || p.RawQuery != "" || p.Fragment != "" {
		return nil, Errorf(Usage, "proxy %s: a proxy is host[:port], without a path", p.Redacted())
	}
	p.Path = ""
	if p.Port() == "" {
		port := "1080"
		if p.Scheme == "https" {
			port = "443"
		}
		p.Host = net.JoinHostPort(p.Hostname(), port)
	} else if n, err := strconv.Atoi(p.Port()); err != nil || n < 1 || n > 65535 {
		return nil, Errorf(Usage, "proxy %s: the port is not a number from 1 to 65535", p.Redacted())
	}
	return p, nil
}

// redactProxy hides what could be a password in a proxy string that did
// not parse: everything before the last '@'.
func redactProxy(s string) string {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		scheme, _, found := strings.Cut(s, "://")
		if found && !strings.Contains(scheme, "@") {
			return scheme + "://****" + s[i:]
		}
		return "****" + s[i:]
	}
	return s
}

// ProxyAll returns a ProxyFunc that sends the connections of every URL
// through p, except those to the hosts noProxy lists (see NoProxy). A nil
// p means no proxy.
func ProxyAll(p *neturl.URL, noProxy string) ProxyFunc {
	np := ParseNoProxy(noProxy)
	return func(u *url.URL) (*neturl.URL, error) {
		if p == nil || np.Match(u.Host) {
			return nil, nil
		}
		return p, nil
	}
}

// Proxy returns the proxy Client.Proxy chooses for the request's URL, nil
// for none, and whether the Client chooses proxies at all (its Proxy is
// set). A handler with proxy settings of its own (HTTP's, from the
// environment) keeps to them only when chosen is false. The connections
// the request dials go through the proxy by themselves; a handler that
// speaks to an HTTP proxy itself (an http URL's absolute-form request)
// dials it with the request Direct returns.
func (r *Request) Proxy() (p *neturl.URL, chosen bool, err error) {
	if r.net == nil || r.net.proxy == nil || r.URL == nil {
		return nil, false, nil
	}
	if r.net.direct {
		return nil, true, nil
	}
	p, err = r.net.proxy(r.URL)
	if err != nil {
		return nil, true, &Error{Kind: KindOf(err), Err: err}
	}
	return p, true, nil
}

// Direct returns a copy of r whose dials go straight to the addresses
// asked for, through no proxy: for a handler that speaks to the proxy
// itself, as HTTP does to an HTTP proxy for http URLs. The policy judges
// the proxy's address as it judges any other.
func (r *Request) Direct() *Request {
	d := *r
	if r.net != nil {
		n := *r.net
		n.direct = true
		d.net = &n
	}
	return &d
}

// Through returns a copy of r whose dials go through the proxy p (an
// http, https, socks5 or socks5h URL, as ParseProxy returns them; nil for
// none), whatever Client.Proxy would choose: for a handler with proxy
// settings of its own (HTTP's, from the environment) that has
// DialContext make the tunnel, as it does for the Client's proxies. The
// policy judges the proxy and the target as it does for those.
func (r *Request) Through(p *neturl.URL) *Request {
	d := *r
	var n netOpts
	if r.net != nil {
		n = *r.net
	}
	n.direct = false
	n.proxy = func(*url.URL) (*neturl.URL, error) { return p, nil }
	d.net = &n
	return &d
}

// dialProxy connects to addr (host:port) through the proxy p: a SOCKS5
// CONNECT, or an HTTP CONNECT tunnel over plain TCP (http) or TLS
// (https). The proxy's own addresses are judged by the policy like any
// other. With socks5 the target's name is resolved here and its addresses
// judged; with socks5h and http(s) the proxy resolves it, and only a
// target given as an IP address can be judged.
func (r *Request) dialProxy(ctx context.Context, network, addr string, p *neturl.URL) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, Errorf(Unsupported, "connecting to %s over %s: a proxy carries TCP connections only (proxy %s)", addr, network, p.Redacted())
	}
	host, port, _ := net.SplitHostPort(addr)
	target := addr
	var targetIP netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		targetIP = a
	} else if p.Scheme == "socks5" {
		ips, err := r.resolve(ctx, network, host, port)
		if err != nil {
			return nil, dialError(ctx, err)
		}
		targetIP = ips[0]
	}
	if targetIP.IsValid() {
		if err := r.allowed(host, targetIP); err != nil {
			return nil, err
		}
		target = net.JoinHostPort(targetIP.String(), port)
	}
	r.Trace.Notef("connecting to %s through the %s proxy %s", target, p.Scheme, p.Redacted())
	pc, err := r.dialHost(ctx, r.net.family("tcp"), p.Hostname(), p.Port())
	if err != nil {
		return nil, err
	}
	var c net.Conn
	switch p.Scheme {
	case "socks5", "socks5h":
		c, err = socksConnect(ctx, pc, p, target)
	case "https":
		tc := &tls.Config{ServerName: p.Hostname()}
		if r.TLS != nil {
			tc = r.TLS.Clone()
			tc.ServerName = p.Hostname()
			tc.NextProtos = nil
		}
		t := tls.Client(pc, tc)
		if err = t.HandshakeContext(ctx); err == nil {
			c, err = connectTunnel(ctx, t, p, target, r.Trace)
		}
	default:
		c, err = connectTunnel(ctx, pc, p, target, r.Trace)
	}
	if err != nil {
		pc.Close()
		if ctx.Err() != nil {
			return nil, dialError(ctx, err)
		}
		var fe *Error
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, &Error{Kind: Connect, Err: fmt.Errorf("proxy %s: %w", p.Redacted(), err)}
	}
	if _, plain := c.(*dialed); !plain {
		// A tunnel inside TLS, a SOCKS connection, bytes read ahead:
		// what is under it is not the target's stream, so a walk down
		// NetConn (to splice from the socket) must stop here.
		c = &tunnelConn{c}
	}
	d := &dialed{Conn: c, addr: pc.addr, host: host, tunnel: true, named: true}
	if targetIP.IsValid() {
		d.addr, d.named = targetIP, false
	}
	r.chain.dialed(d.addr)
	return d, nil
}

// socksConnect asks the SOCKS5 proxy on c to connect to target.
func socksConnect(ctx context.Context, c net.Conn, p *neturl.URL, target string) (net.Conn, error) {
	var auth *proxy.Auth
	if p.User != nil {
		pw, _ := p.User.Password()
		auth = &proxy.Auth{User: p.User.Username(), Password: pw}
	}
	once := onceDialer{c}
	d, err := proxy.SOCKS5("tcp", p.Host, auth, &once)
	if err != nil {
		return nil, err
	}
	tc, err := d.(proxy.ContextDialer).DialContext(ctx, "tcp", target)
	if err != nil && strings.Contains(err.Error(), "authentication failed") {
		// golang.org/x/net/internal/socks has no error value for a
		// refused RFC 1929 login; its text is all there is.
		return nil, &Error{Kind: Auth, Err: fmt.Errorf("proxy %s: %w", p.Redacted(), err)}
	}
	return tc, err
}

// onceDialer hands out one connection already made: the one to the proxy,
// which the policy has judged.
type onceDialer struct{ c net.Conn }

func (o *onceDialer) Dial(network, addr string) (net.Conn, error) {
	return o.DialContext(context.Background(), network, addr)
}

func (o *onceDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	if o.c == nil {
		return nil, errors.New("the proxy connection was used already")
	}
	c := o.c
	o.c = nil
	return c, nil
}

// maxProxyReply bounds the header of a proxy's reply to CONNECT.
const maxProxyReply = 64 << 10

// errProxyAuth is the cause of a proxy's 407 to CONNECT.
var errProxyAuth = errors.New("the proxy asks for authentication (407)")

// connectTunnel asks the HTTP proxy on c for a tunnel to target (RFC 9110
// §9.3.6) and returns the tunnel. Bytes the proxy sent after its reply
// (a server's greeting) are read first. tr gets the request's lines (the
// credentials masked) and the reply's status line.
func connectTunnel(ctx context.Context, c net.Conn, p *neturl.URL, target string, tr *Trace) (net.Conn, error) {
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
		defer c.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(past) })
	defer stop()
	var b strings.Builder
	b.WriteString("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n")
	tr.Send("CONNECT " + target + " HTTP/1.1")
	tr.Send("Host: " + target)
	if p.User != nil {
		pw, _ := p.User.Password()
		b.WriteString("Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(p.User.Username()+":"+pw)) + "\r\n")
		tr.Send("Proxy-Authorization: Basic ****")
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(c, b.String()); err != nil {
		return nil, err
	}
	lr := &io.LimitedReader{R: c, N: maxProxyReply}
	br := bufio.NewReader(lr)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		if lr.N == 0 {
			return nil, Errorf(Protocol, "the proxy's reply to CONNECT is longer than %d bytes", maxProxyReply)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The connection's deadline is the dial's: it may pass an
			// instant before ctx says so.
			return nil, &Error{Kind: Timeout, Err: fmt.Errorf("proxy %s: no reply to CONNECT %s in time: %w", p.Redacted(), target, err)}
		}
		return nil, Wrap(Protocol, fmt.Errorf("reading the proxy's reply to CONNECT: %w", err))
	}
	tr.Recv(resp.Proto + " " + resp.Status)
	if resp.StatusCode == http.StatusProxyAuthRequired {
		return nil, &Error{Kind: Auth, Err: fmt.Errorf("proxy %s: %w", p.Redacted(), errProxyAuth)}
	}
	if resp.StatusCode/100 != 2 {
		return nil, &Error{Kind: Connect, Err: fmt.Errorf("proxy %s: CONNECT %s: %s", p.Redacted(), target, Sanitize(resp.Status))}
	}
	if n := br.Buffered(); n > 0 {
		rest, _ := br.Peek(n)
		return &prefixConn{Conn: c, r: io.MultiReader(bytes.NewReader(bytes.Clone(rest)), c)}, nil
	}
	return c, nil
}

// tunnelConn is a tunnel whose underlying connection does not carry the
// target's bytes as they are. It has no NetConn method, on purpose.
type tunnelConn struct{ net.Conn }

// prefixConn is a connection whose first bytes were read already.
type prefixConn struct {
	net.Conn
	r io.Reader
}

func (c *prefixConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// PeerHost returns the host a connection made by wire.Dial or
// Request.DialContext (or one wrapping such) reached, for a handler that
// opens a second connection to the same server, as FTP's passive data
// connection does: the address dialed, or, through a proxy that resolved
// the server's name itself, that name, for the proxy to resolve again. For
// any other connection it is the remote address's host.
func PeerHost(c net.Conn) string {
	if d, ok := dialedOf(c); ok {
		if d.tunnel && d.named {
			return d.host
		}
		return d.addr.String()
	}
	host, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		return c.RemoteAddr().String()
	}
	return host
}
