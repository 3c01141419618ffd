package fetchtest

import (
	"net"
	"time"

	"github.com/rfc1738/fetch/fetch/wire"
)

// DelayedAckBound is the longest that a test of NagleConn lets one
// exchange take on average: half of Linux's shortest delayed-ACK timer
// (TCP_DELACK_MIN, 40 ms). A client that waited for that timer once per
// exchange takes at least twice as long, so the bound tells the stall
// apart however loaded the machine is.
const DelayedAckBound = 20 * time.Millisecond

// NagleConn wraps a server's side of a connection so that it writes as
// freeWAIS and nginx do: with Nagle's algorithm on (TCP_NODELAY off), and
// each Write in two pieces, the first half and the rest. The kernel sends
// the second piece only once the first is acknowledged, so a client that
// awaits the reply without acknowledging at once waits for its
// delayed-ACK timer (40 ms at least on Linux) on every exchange. c is a
// TCP connection or a wrapper of one (a *tls.Conn: each piece is then a
// record of its own).
func NagleConn(c net.Conn) net.Conn {
	if tc, ok := wire.TCPConn(c); ok {
		tc.SetNoDelay(false)
	}
	return &nagleConn{c}
}

type nagleConn struct{ net.Conn }

func (c *nagleConn) Write(p []byte) (int, error) {
	if len(p) < 2 {
		return c.Conn.Write(p)
	}
	n, err := c.Conn.Write(p[:len(p)/2])
	if err != nil {
		return n, err
	}
	m, err := c.Conn.Write(p[len(p)/2:])
	return n + m, err
}
