package fetch

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// Resolver looks up the IP addresses of a host name. *net.Resolver
// implements it; a test can map names of its own to in-process servers.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// chain is what the requests of one fetch (the request, and the hops the
// Client follows from it) share: whether any of their dials
// reached a public address, for the hop rule.
type chain struct {
	mu     sync.Mutex
	public bool
}

func (c *chain) reachedPublic() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.public
}

func (c *chain) dialed(a netip.Addr) {
	if c == nil || isPrivate(a) {
		return
	}
	c.mu.Lock()
	c.public = true
	c.mu.Unlock()
}

// DialContext connects to addr ("host:port") over network ("tcp", "udp",
// or a variant) within ctx and the request's connect timeout, and returns
// the plain connection, untraced, for transports that wrap and trace
// connections themselves (HTTP). The policy is applied at dial time, to every address:
//
//   - a port below 1024 that is another protocol's is refused unless
//     Policy.AllowPortOverride (the request's scheme may use its own);
//   - the host is resolved (Client.Resolver), and with Policy.DenyPrivate
//     a private, loopback, link-local, unspecified or multicast address is
//     refused;
//   - once a request, or the request it is a hop of, has reached a public
//     address, a private one is refused even without DenyPrivate: a public
//     server cannot send us to the inside.
//
// Before all this, Client.ConnectTo may put another address in addr's
// place; Client.Resolve may answer for the resolver, and Client.IPVersion
// narrows the addresses to one family. When Client.Proxy names a proxy
// for the request's URL, the connection is a tunnel through it (see
// Client.Proxy): the proxy's addresses are judged as above (its port is
// the user's choice and not held to the port rule), and the target's too
// when it is an IP address or, with socks5, resolved here; a name a
// socks5h or HTTP proxy resolves is out of the policy's sight.
//
// The connection is made by Client.DialContext to the resolved "ip:port",
// else by a net.Dialer. The addresses of a name race as RFC 8305 (Happy
// Eyeballs) says: IPv6 first, the families interleaved, the next attempt
// started when one fails or after Client.FallbackDelay (250 ms), the first
// connection made winning. A refusal is an *Error of Kind Refused; a
// failure is Connect, Timeout or Canceled. A Request not passed through a
// Client is held to the zero Policy and dials with a net.Dialer.
func (r *Request) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	addr = r.net.target(addr)
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, Errorf(Usage, "address %s: the port is not a number from 0 to 65535", addr)
	}
	scheme := ""
	if r.URL != nil {
		scheme = r.URL.Scheme
	}
	if err := r.policy.checkPort(scheme, port); err != nil {
		return nil, err
	}
	network = r.net.family(network)
	timeout := r.EffectiveConnectTimeout()
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, &Error{Kind: Timeout, Err: &noAnswer{addr, timeout}})
	defer cancel()
	p, _, err := r.Proxy()
	if err != nil {
		return nil, err
	}
	if p != nil {
		return r.dialProxy(ctx, network, addr, p)
	}
	d, err := r.dialHost(ctx, network, host, portText)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// dialHost resolves host, judges every address by the policy, and
// connects to one of them on port (see dialAddrs). ctx bounds it all.
func (r *Request) dialHost(ctx context.Context, network, host, portText string) (*dialed, error) {
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, Errorf(Usage, "address %s: the port is not a number from 0 to 65535", net.JoinHostPort(host, portText))
	}
	ips, err := r.resolve(ctx, network, host, portText)
	if err != nil {
		return nil, dialError(ctx, err)
	}
	r.Timing.looked()
	for _, a := range ips {
		if err := r.allowed(host, a); err != nil {
			return nil, err
		}
	}
	c, a, err := r.dialAddrs(ctx, network, ips, uint16(port))
	if err != nil {
		return nil, dialError(ctx, err)
	}
	r.chain.dialed(a)
	r.Timing.connected()
	return &dialed{Conn: c, addr: a, host: host}, nil
}

// dialed is a connection DialContext made: it remembers the address the
// policy passed, for CheckReuse.
type dialed struct {
	net.Conn
	addr netip.Addr
	host string
	// tunnel marks a connection through a proxy: Conn is the tunnel,
	// and addr the target's address when it was resolved here, else
	// (named) the proxy's, the proxy having resolved host.
	tunnel bool
	named  bool
}

// NetConn returns the connection the dialer made, as (*tls.Conn).NetConn
// does: a handler that moves bytes with the kernel's help (an *os.File's
// ReadFrom splices from a *net.TCPConn) finds the socket under it.
func (d *dialed) NetConn() net.Conn { return d.Conn }

// CheckReuse applies the dial-time policy to a pooled connection before
// the request uses it: DenyPrivate and the hop rule judge the address the
// connection was dialed to, as DialContext judged it then for another
// request. A handler that reuses connections (HTTP's transport, an FTP or
// NNTP pool) calls it on each one it takes, and must not use the
// connection when it fails. c is a connection from Dial or DialContext,
// or one wrapping such (a *tls.Conn); for any other, CheckReuse knows
// nothing and returns nil.
func (r *Request) CheckReuse(c net.Conn) error {
	d, ok := dialedOf(c)
	if !ok {
		return nil
	}
	if err := r.allowed(d.host, d.addr); err != nil {
		return err
	}
	r.chain.dialed(d.addr)
	return nil
}

// dialedOf finds the *dialed under c's wrappers.
func dialedOf(c net.Conn) (*dialed, bool) {
	for range 8 {
		switch x := c.(type) {
		case *dialed:
			return x, true
		case interface{ NetConn() net.Conn }: // *tls.Conn, *wire.Conn
			c = x.NetConn()
		default:
			return nil, false
		}
	}
	return nil, false
}

// share returns the deadline for one of left addresses still to try: an
// equal share of the time remaining, but at least two seconds, as
// net.Dialer does.
func share(ctx context.Context, left int) time.Time {
	dl, ok := ctx.Deadline()
	if !ok {
		return time.Now().Add(DefaultConnectTimeout)
	}
	each := time.Until(dl) / time.Duration(left)
	if each < 2*time.Second {
		each = 2 * time.Second
	}
	if t := time.Now().Add(each); t.Before(dl) {
		return t
	}
	return dl
}

// resolve returns host's addresses: host itself when it is an IP address,
// else the resolver's answer.
func (r *Request) resolve(ctx context.Context, network, host, port string) ([]netip.Addr, error) {
	if ips := r.net.resolved(host, port); ips != nil {
		return onlyFamily(network, host, ips)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return onlyFamily(network, host, []netip.Addr{a})
	}
	ipnet := "ip"
	switch network {
	case "tcp4", "udp4":
		ipnet = "ip4"
	case "tcp6", "udp6":
		ipnet = "ip6"
	}
	var res Resolver = net.DefaultResolver
	if r.resolver != nil {
		res = r.resolver
	}
	ips, err := res.LookupNetIP(ctx, ipnet, host)
	if err == nil && len(ips) == 0 {
		err = &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	return ips, err
}

// allowed applies DenyPrivate and the hop rule to one resolved address.
func (r *Request) allowed(host string, a netip.Addr) error {
	if !isPrivate(a) {
		return nil
	}
	if r.policy.DenyPrivate {
		return Errorf(Refused, "%s is a private, loopback, link-local or multicast address", addrText(host, a))
	}
	if r.FromPublic || r.chain.reachedPublic() {
		return Errorf(Refused, "%s is a private address, reached from a public one", addrText(host, a))
	}
	return nil
}

// addrText names a resolved address in an error: the host, and the
// address when the host is a name.
func addrText(host string, a netip.Addr) string {
	what := a.String()
	if host != what {
		what = host + " (" + what + ")"
	}
	return what
}

// dialError classifies a failed dial: the context's cause when it is done
// (Canceled, or the connect timeout), else Connect.
// noAnswer is the cause a dial's context ends with when the connect
// timeout passes. It is made for every dial and read for few, so its text
// is formatted only when asked for.
type noAnswer struct {
	addr    string
	timeout time.Duration
}

func (e *noAnswer) Error() string {
	return "connecting to " + e.addr + ": no answer in " + e.timeout.String()
}

func dialError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil {
			err = cause
		}
	}
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	switch k := KindOf(err); k {
	case Timeout, Canceled:
		return &Error{Kind: k, Err: err}
	}
	return &Error{Kind: Connect, Err: err}
}
