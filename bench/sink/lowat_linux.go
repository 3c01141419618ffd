package main

import (
	"net"

	"golang.org/x/sys/unix"
)

// setLowat asks the kernel to wake the reader only once n bytes are
// queued (SO_RCVLOWAT), as fetch's gopher splice does, so that the floor
// has every advantage fetch has.
func setLowat(c *net.TCPConn, n int) {
	if rc, err := c.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVLOWAT, n) })
	}
}
