//go:build !linux

package main

import (
	"errors"
)

// createUnnamed reports that unnamed files are not made here: the output
// goes to a named temporary file (see createTemp).
func createUnnamed(dir string) (int, bool) { return -1, false }

// errNoUnnamed is what the functions below return: they are never called
// where createUnnamed makes no file.
var errNoUnnamed = errors.New("unnamed output files are not supported on this system")

// linkUnnamed is never called where createUnnamed makes no file.
func linkUnnamed(fd int, final string) error { return errNoUnnamed }

// writeFD is never called where createUnnamed makes no file.
func writeFD(fd int, name string, p []byte) (int, error) { return 0, errNoUnnamed }

// closeFD is never called where createUnnamed makes no file.
func closeFD(fd int, name string) error { return errNoUnnamed }
