package fetchtest

import (
	"net"
	"net/netip"
	"os"
	"sync"
	"syscall"
	"time"
)

// packetQueue is how many datagrams an endpoint of Pipes holds unread;
// one more is dropped, as a full socket buffer drops it.
const packetQueue = 256

// ListenPacket returns a datagram endpoint at addr ("127.0.0.1:port"; port
// 0 chooses a free one) on p: UDP in memory, for a server in a
// testing/synctest bubble. A "udp" dial of p's DialContext to its address
// gets a connected endpoint of its own. As on UDP, a datagram keeps its
// bounds, a write never waits, and a datagram to an address where no
// endpoint is, or to one holding packetQueue unread, is lost. Addresses
// are *net.UDPAddr.
func (p *Pipes) ListenPacket(addr string) (net.PacketConn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: "udp", Err: err}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if ap.Port() == 0 {
		ap = netip.AddrPortFrom(ap.Addr(), p.nextPort())
	}
	if p.endpoints[ap] != nil {
		return nil, &net.OpError{Op: "listen", Net: "udp", Addr: net.UDPAddrFromAddrPort(ap), Err: syscall.EADDRINUSE}
	}
	return p.newEndpoint(ap, netip.AddrPort{}), nil
}

// dialPacket makes a client's endpoint, at a port of its own, connected to
// addr. Nothing is sent: a dial to an address without an endpoint
// succeeds, as a UDP dial does.
func (p *Pipes) dialPacket(addr netip.AddrPort) *packetConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dials++
	local := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 50000+p.dials%10000)
	return p.newEndpoint(local, addr)
}

// newEndpoint makes and registers an endpoint at addr, connected to peer
// when peer is valid. p.mu is held.
func (p *Pipes) newEndpoint(addr, peer netip.AddrPort) *packetConn {
	if p.endpoints == nil {
		p.endpoints = map[netip.AddrPort]*packetConn{}
	}
	c := &packetConn{p: p, addr: addr, peer: peer, inbox: make(chan datagram, packetQueue), done: make(chan struct{})}
	c.rd.cancel = make(chan struct{})
	p.endpoints[addr] = c
	return c
}

// send delivers b from one endpoint to the endpoint at to, if there is
// one with room for it.
func (p *Pipes) send(from, to netip.AddrPort, b []byte) {
	p.mu.Lock()
	c := p.endpoints[to]
	p.mu.Unlock()
	if c == nil {
		return
	}
	select {
	case c.inbox <- datagram{from, append([]byte(nil), b...)}:
	default:
	}
}

// datagram is one datagram in an endpoint's queue.
type datagram struct {
	from netip.AddrPort
	b    []byte
}

// packetConn is an endpoint of Pipes: a net.PacketConn, and, dialed, a
// connected net.Conn.
type packetConn struct {
	p     *Pipes
	addr  netip.AddrPort
	peer  netip.AddrPort // a dialed endpoint's; invalid for a listener's
	inbox chan datagram
	done  chan struct{}
	once  sync.Once
	rd    deadline
}

// ReadFrom returns the next datagram (of the peer, when connected),
// truncated to b as UDP truncates it.
func (c *packetConn) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		select {
		case d := <-c.inbox:
			if c.peer.IsValid() && d.from != c.peer {
				continue
			}
			return copy(b, d.b), net.UDPAddrFromAddrPort(d.from), nil
		case <-c.done:
			return 0, nil, c.opError("read", net.ErrClosed)
		case <-c.rd.wait():
			return 0, nil, c.opError("read", os.ErrDeadlineExceeded)
		}
	}
}

// WriteTo sends b to addr, a *net.UDPAddr.
func (c *packetConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	select {
	case <-c.done:
		return 0, c.opError("write", net.ErrClosed)
	default:
	}
	ua, ok := addr.(*net.UDPAddr)
	if !ok {
		return 0, c.opError("write", syscall.EINVAL)
	}
	c.p.send(c.addr, ua.AddrPort(), b)
	return len(b), nil
}

func (c *packetConn) Read(b []byte) (int, error) {
	n, _, err := c.ReadFrom(b)
	return n, err
}

// Write sends b to the peer of a dialed endpoint.
func (c *packetConn) Write(b []byte) (int, error) {
	return c.WriteTo(b, net.UDPAddrFromAddrPort(c.peer))
}

// Close ends pending and later reads and frees the address.
func (c *packetConn) Close() error {
	c.once.Do(func() {
		close(c.done)
		c.p.mu.Lock()
		if c.p.endpoints[c.addr] == c {
			delete(c.p.endpoints, c.addr)
		}
		c.p.mu.Unlock()
	})
	return nil
}

func (c *packetConn) LocalAddr() net.Addr { return net.UDPAddrFromAddrPort(c.addr) }

func (c *packetConn) RemoteAddr() net.Addr {
	if !c.peer.IsValid() {
		return nil
	}
	return net.UDPAddrFromAddrPort(c.peer)
}

// SetDeadline sets the read deadline: a write never waits.
func (c *packetConn) SetDeadline(t time.Time) error      { return c.SetReadDeadline(t) }
func (c *packetConn) SetReadDeadline(t time.Time) error  { c.rd.set(t); return nil }
func (c *packetConn) SetWriteDeadline(t time.Time) error { return nil }

func (c *packetConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "udp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// deadline is a read deadline as net.Pipe keeps one: a channel closed when
// it passes, by a timer (the bubble's, in a bubble).
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	cancel chan struct{} // closed once the deadline has passed
}

func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.cancel // the timer's func has run or is closing it
	}
	d.timer = nil
	closed := false
	select {
	case <-d.cancel:
		closed = true
	default:
	}
	if t.IsZero() {
		if closed {
			d.cancel = make(chan struct{})
		}
		return
	}
	if wait := time.Until(t); wait > 0 {
		if closed {
			d.cancel = make(chan struct{})
		}
		cancel := d.cancel
		d.timer = time.AfterFunc(wait, func() { close(cancel) })
		return
	}
	if !closed {
		close(d.cancel)
	}
}

func (d *deadline) wait() chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cancel
}
