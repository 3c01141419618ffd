//go:build !unix

package telnet

import (
	"io"
	"os"
)

// interruptible returns f: on this system a pending Read of the terminal
// stays blocked until the next key or the end of the process.
func interruptible(f *os.File) (io.Reader, func()) { return f, func() {} }
