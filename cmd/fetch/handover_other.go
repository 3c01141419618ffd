//go:build !unix

package main

import (
	"errors"
	"os"
)

// execInPlace is not available here: the caller runs a child instead.
func execInPlace(path string, argv []string) error { return errors.ErrUnsupported }

// stopChild stops the child; without Unix signals, by killing it.
func stopChild(p *os.Process) { p.Kill() }
