//go:build unix

package telnet

import (
	"io"
	"os"
	"syscall"

	"github.com/rfc1738/fetch/fetch/wire"
)

// interruptible returns a reader of f whose pending Read release ends, so
// that no goroutine stays blocked on the terminal or pipe after a session.
// It reads through a non-blocking duplicate of f's descriptor (which the
// runtime's poller can interrupt) and restores blocking mode on release.
// When that cannot be arranged it returns f itself.
func interruptible(f *os.File) (io.Reader, func()) {
	fd := int(f.Fd())
	dup, err := syscall.Dup(fd)
	if err != nil {
		return f, func() {}
	}
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return f, func() {}
	}
	nf := os.NewFile(uintptr(dup), f.Name())
	return nf, func() {
		nf.SetReadDeadline(wire.Past())
		nf.Close()
		syscall.SetNonblock(fd, false)
	}
}
