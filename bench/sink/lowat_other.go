//go:build !linux

package main

import "net"

// setLowat does nothing here: fetch sets a low mark only on Linux.
func setLowat(c *net.TCPConn, n int) {}
