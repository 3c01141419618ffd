//go:build !linux

package http

import (
	"net"
	"syscall"
)

// socketOf returns nil: quickAck does nothing here.
func socketOf(c net.Conn) syscall.RawConn { return nil }

// quickAck does nothing where TCP_QUICKACK is not there (see the Linux
// version).
func quickAck(s syscall.RawConn) {}
