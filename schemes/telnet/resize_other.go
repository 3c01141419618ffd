//go:build !unix

package telnet

import "os"

// notifyResize returns no channel: there is no SIGWINCH here, and the
// window size is the one Interact found at its start.
func notifyResize() (<-chan os.Signal, func()) { return nil, func() {} }
