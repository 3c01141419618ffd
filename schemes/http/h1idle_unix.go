//go:build unix

package http

import (
	"net"
	"syscall"

	"github.com/rfc1738/fetch/fetch/wire"
	"golang.org/x/sys/unix"
)

// idleCheck looks, without reading, whether an idle connection's socket
// has anything waiting: bytes the server sent unasked, or its end. It is
// made once per connection, so that a check that finds nothing, as most
// do, costs no allocation.
type idleCheck struct {
	raw   syscall.RawConn
	look  func(fd uintptr) // for raw.Control
	found waiting          // look's answer
	fds   [1]unix.PollFd
	buf   [1]byte
}

// newIdleCheck returns the check of c's socket, or nil when c is not a
// TCP connection.
func newIdleCheck(c net.Conn) *idleCheck {
	tc, ok := wire.TCPConn(c)
	if !ok {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	ic := &idleCheck{raw: raw}
	ic.look = func(fd uintptr) {
		// A poll that does not wait: the socket is readable when a
		// byte has come, or its end (the server closed it), or an
		// error (a reset). Its arguments are ic's, so that it costs no
		// allocation.
		ic.fds[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
		for {
			n, err := unix.Poll(ic.fds[:], 0)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				ic.found = waitEnd
				return
			}
			if n == 0 {
				ic.found = waitNothing
				return
			}
			break
		}
		// Something is there: a byte, or the end. A peek tells which;
		// it does not wait, Go's sockets being non-blocking
		// (unix.Recvfrom makes an address: only on this rare path).
		for {
			n, _, err := unix.Recvfrom(int(fd), ic.buf[:], unix.MSG_PEEK)
			switch {
			case err == unix.EINTR:
				continue
			case n > 0:
				ic.found = waitBytes
			case err == unix.EAGAIN || err == unix.EWOULDBLOCK:
				ic.found = waitNothing // gone since the poll
			default:
				ic.found = waitEnd // the end of the stream, or an error
			}
			return
		}
	}
	return ic
}

// pending tells what waits on the socket. A nil check reports
// waitNothing; a socket that cannot be looked at, waitEnd.
func (ic *idleCheck) pending() waiting {
	if ic == nil {
		return waitNothing
	}
	ic.found = waitNothing
	// Control, not Read: Read would refuse at once when the read
	// deadline has passed, as an idle connection's may have.
	if err := ic.raw.Control(ic.look); err != nil {
		return waitEnd // closed under it
	}
	return ic.found
}
