package wire

import (
	"net"

	"golang.org/x/sys/unix"
)

// setLowat asks the kernel to wake a reader waiting on c only once n bytes
// are queued, or the peer has closed, or the connection failed (SO_RCVLOWAT;
// the kernel grows the receive buffer to twice n if need be). A server
// that writes in small pieces is then not interrupted by a wakeup of this
// process for each piece. It reports whether the kernel took it.
func setLowat(c *net.TCPConn, n int) bool {
	rc, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVLOWAT, n)
	}); err != nil {
		return false
	}
	return serr == nil
}
