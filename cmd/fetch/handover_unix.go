//go:build unix

package main

import (
	"os"
	"syscall"
)

// execInPlace replaces this process with path, run with argv; it returns
// only on failure.
func execInPlace(path string, argv []string) error {
	return syscall.Exec(path, argv, os.Environ())
}

// stopChild asks the child to stop as fetch was asked to.
func stopChild(p *os.Process) { p.Signal(syscall.SIGTERM) }
