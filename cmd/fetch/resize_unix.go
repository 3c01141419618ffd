//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyResize returns a channel that receives a value whenever the
// terminal's window changes size (SIGWINCH), for telnet.Interact, and the
// function that stops the notifications.
func notifyResize() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGWINCH)
	return c, func() { signal.Stop(c) }
}
