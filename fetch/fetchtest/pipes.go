package fetchtest

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Pipes is a network in memory, for tests of timeouts run in a
// testing/synctest bubble: its connections are net.Pipe ends, so a wait
// on one is durably blocking and the bubble's clock moves on to the next
// deadline at once, where a wait on a socket would hold the clock still.
// Listen makes listeners at addresses of 127.0.0.1; DialContext, for
// fetch.Client's hook, connects to the listener at the address dialed
// and refuses any other. As on TCP, a dial succeeds once there is room in
// the listener's backlog (pipeBacklog connections not yet accepted), not
// when it accepts. ListenPacket makes UDP's endpoints.
//
// Make a Pipes, and use it, inside the bubble: its channels belong to the
// bubble that makes them. The connections' addresses are *net.TCPAddr,
// the client's a port of its own, so code that reads a peer's IP (FTP's
// data connection) works on them. A pipe is not a socket: it has no
// buffer (a Write waits for the Read), no TCP options and no splice; a
// connection in the backlog when its listener closes is closed. Two
// Writes at once on one end are a case to avoid in a bubble: the second
// waits on a mutex, which is not durably blocking, so the bubble's clock
// stands still while it waits.
//
//	synctest.Test(t, func(t *testing.T) {
//		var p fetchtest.Pipes
//		addr := p.Serve(t, func(c net.Conn) { ... })
//		c := &fetch.Client{DialContext: p.DialContext}
//		...
//	})
type Pipes struct {
	mu        sync.Mutex
	listeners map[netip.AddrPort]*pipeListener
	endpoints map[netip.AddrPort]*packetConn // UDP's (see ListenPacket)
	port      uint16                         // the last listener port given out (from 40000)
	dials     uint16                         // the dials made: the client's ports (from 50000)
}

// Listen returns a listener at addr, "127.0.0.1:port"; port 0 chooses a
// free one. Its Addr is a *net.TCPAddr.
func (p *Pipes) Listen(addr string) (net.Listener, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: "tcp", Err: err}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listeners == nil {
		p.listeners = map[netip.AddrPort]*pipeListener{}
	}
	if ap.Port() == 0 {
		ap = netip.AddrPortFrom(ap.Addr(), p.nextPort())
	}
	if p.listeners[ap] != nil {
		return nil, &net.OpError{Op: "listen", Net: "tcp", Addr: net.TCPAddrFromAddrPort(ap), Err: syscall.EADDRINUSE}
	}
	l := &pipeListener{p: p, addr: ap, conns: make(chan net.Conn, pipeBacklog), done: make(chan struct{})}
	p.listeners[ap] = l
	return l, nil
}

// nextPort returns a port no listener of p has. p.mu is held.
func (p *Pipes) nextPort() uint16 {
	for {
		p.port++
		if p.port < 40000 {
			p.port = 40000
		}
		taken := false
		for ap := range p.listeners {
			taken = taken || ap.Port() == p.port
		}
		for ap := range p.endpoints {
			taken = taken || ap.Port() == p.port
		}
		if !taken {
			return p.port
		}
	}
}

// Serve is the package's Serve on a listener of p at 127.0.0.1, a free
// port: serve answers each connection dialed there. It returns the
// address, "127.0.0.1:port".
func (p *Pipes) Serve(t testing.TB, serve func(c net.Conn)) string {
	t.Helper()
	ln, err := p.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ServeListener(t, ln, serve)
}

// pipeBacklog is how many connections a listener of Pipes holds before
// they are accepted; a dial beyond waits for room.
const pipeBacklog = 64

// DialContext connects to the listener at addr ("ip:port"), once its
// backlog has room, within ctx. With no listener there, the dial is
// refused (syscall.ECONNREFUSED), as a closed port's. A "udp" network
// gives a datagram endpoint connected to addr (see ListenPacket).
func (p *Pipes) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	if strings.HasPrefix(network, "udp") {
		return p.dialPacket(ap), nil
	}
	p.mu.Lock()
	l := p.listeners[ap]
	p.dials++
	local := net.TCPAddrFromAddrPort(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 50000+p.dials%10000))
	p.mu.Unlock()
	refused := &net.OpError{Op: "dial", Net: network, Addr: net.TCPAddrFromAddrPort(ap), Err: syscall.ECONNREFUSED}
	if l == nil {
		return nil, refused
	}
	remote := net.TCPAddrFromAddrPort(ap)
	cc, sc := net.Pipe()
	select {
	case l.conns <- &pipeConn{Conn: sc, local: remote, remote: local}:
	case <-l.done:
		return nil, refused
	case <-ctx.Done():
		return nil, &net.OpError{Op: "dial", Net: network, Addr: remote, Err: ctx.Err()}
	}
	select {
	case <-l.done: // closed as the dial went in: Close may have missed it
		cc.Close()
		sc.Close()
		return nil, refused
	default:
		return &pipeConn{Conn: cc, local: local, remote: remote}, nil
	}
}

// pipeListener is a listener of Pipes.
type pipeListener struct {
	p     *Pipes
	addr  netip.AddrPort
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: net.ErrClosed}
	}
}

// Close stops Accept, closes the connections not accepted yet, and frees
// the address; dials to it are refused.
func (l *pipeListener) Close() error {
	l.once.Do(func() {
		close(l.done)
		l.p.mu.Lock()
		if l.p.listeners[l.addr] == l {
			delete(l.p.listeners, l.addr)
		}
		l.p.mu.Unlock()
		for {
			select {
			case c := <-l.conns:
				c.Close()
			default:
				return
			}
		}
	})
	return nil
}

func (l *pipeListener) Addr() net.Addr { return net.TCPAddrFromAddrPort(l.addr) }

// pipeConn is a net.Pipe end with the addresses of a TCP connection.
type pipeConn struct {
	net.Conn
	local, remote net.Addr
}

func (c *pipeConn) LocalAddr() net.Addr  { return c.local }
func (c *pipeConn) RemoteAddr() net.Addr { return c.remote }
