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
// made once per connection, so that a check costs no allocation.
type idleCheck struct {
	raw     syscall.RawConn
	peek    func(fd uintptr) // for raw.Control
	waiting bool             // peek's answer
	fds     [1]unix.PollFd
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
	ic.peek = func(fd uintptr) {
		// A poll that does not wait: the socket is readable when a
		// byte has come, or its end (the server closed it), or an
		// error (a reset). Its arguments are ic's, so that it costs no
		// allocation (unix.Recvfrom with MSG_PEEK makes an address).
		ic.fds[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
		for {
			n, err := unix.Poll(ic.fds[:], 0)
			if err == unix.EINTR {
				continue
			}
			ic.waiting = n > 0 || err != nil
			return
		}
	}
	return ic
}

// pending reports whether anything is waiting on the socket. A nil
// check, and a socket that cannot be looked at, report false.
func (ic *idleCheck) pending() bool {
	if ic == nil {
		return false
	}
	ic.waiting = false
	// Control, not Read: Read would refuse at once when the read
	// deadline has passed, as an idle connection's may have.
	if err := ic.raw.Control(ic.peek); err != nil {
		return true // closed under it
	}
	return ic.waiting
}
