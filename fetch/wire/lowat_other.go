//go:build !linux

package wire

import "net"

// setLowat does nothing here: only Linux splices from a socket to a file,
// and only there does a Splicer ask for a low mark.
func setLowat(c *net.TCPConn, n int) bool { return false }
