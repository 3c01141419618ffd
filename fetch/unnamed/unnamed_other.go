//go:build !linux

package unnamed

import "errors"

// Create reports that unnamed files are not made here: the caller uses a
// named temporary file.
func Create(dir string) (fd int, ok bool) { return -1, false }

// errUnsupported is what the functions below return: they are never
// called where Create makes no file.
var errUnsupported = errors.New("unnamed files are not supported on this system")

// Link is never called where Create makes no file.
func Link(fd int, name string) error { return errUnsupported }

// Write is never called where Create makes no file.
func Write(fd int, name string, p []byte) (int, error) { return 0, errUnsupported }

// Close is never called where Create makes no file.
func Close(fd int, name string) error { return errUnsupported }
