package wire

import (
	"net"

	"golang.org/x/sys/unix"
)

// QuickAck has the kernel acknowledge at once what arrives on c, the
// connection or a wrapper of it (see TCPConn), rather than after its
// delayed-ACK timer (40 ms at least on Linux), for the reads that follow
// (TCP_QUICKACK). Handlers call it when they have sent a request and
// await its reply: a server that writes its reply in pieces with Nagle's
// algorithm on (freeWAIS, nginx's pipelined replies) holds the second
// piece until the first is acknowledged, while this side, with nothing to
// send, would carry the acknowledgement on nothing until the timer fires.
// The kernel leaves that mode by itself when this side sends again soon
// after receiving, so the call belongs after each request's write. It
// does nothing for a connection that is not TCP, and nothing on systems
// other than Linux.
func QuickAck(c net.Conn) {
	tc, ok := TCPConn(c)
	if !ok {
		return
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1)
	})
}
