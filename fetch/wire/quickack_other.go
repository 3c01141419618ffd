//go:build !linux

package wire

import "net"

// QuickAck does nothing where TCP_QUICKACK is not there (see the Linux
// version).
func QuickAck(c net.Conn) {}
