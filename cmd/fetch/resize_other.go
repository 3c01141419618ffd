//go:build !unix

package main

import (
	"os"
)

// notifyResize returns no channel: there is no SIGWINCH here, and the
// size is told once, at the start.
func notifyResize() (<-chan os.Signal, func()) { return nil, func() {} }
