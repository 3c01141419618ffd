package http

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/rfc1738/fetch/fetch"
)

// socketOf returns the socket under c, for quickAck, or nil when c is not
// a TCP connection.
func socketOf(c net.Conn) syscall.RawConn {
	tc, ok := fetch.TCPConn(c)
	if !ok {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// quickAck has the kernel acknowledge at once what has come on the socket
// s, rather than after its delayed-ACK timer (40 ms at least on Linux),
// and for a while after (TCP_QUICKACK). release calls it when a pipelined
// request's turn comes and nothing of its reply is there yet: the server
// may hold that reply back until what it sent before is acknowledged
// (Nagle's algorithm; nginx writes pipelined replies so), while this side,
// with no request left to send, has nothing to carry the acknowledgement
// on. A nil s is let be.
func quickAck(s syscall.RawConn) {
	if s == nil {
		return
	}
	s.Control(func(fd uintptr) {
		unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1)
	})
}
