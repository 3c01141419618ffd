//go:build !unix

package http

import "net"

// idleCheck is not made where a socket cannot be looked at without a
// read (see the Unix version): an idle connection that has stray bytes
// waiting is then not told apart before reuse.
type idleCheck struct{}

// newIdleCheck returns nil.
func newIdleCheck(c net.Conn) *idleCheck { return nil }

// pending reports waitNothing.
func (ic *idleCheck) pending() waiting { return waitNothing }
