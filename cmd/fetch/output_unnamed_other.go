//go:build !linux

package main

import (
	"errors"
	"os"
)

// createUnnamed reports that unnamed files are not made here: the output
// goes to a named temporary file (see createTemp).
func createUnnamed(dir, final string) (*os.File, bool) { return nil, false }

// linkUnnamed is never called where createUnnamed makes no file.
func linkUnnamed(t *os.File, final string) error {
	return errors.New("unnamed output files are not supported on this system")
}
