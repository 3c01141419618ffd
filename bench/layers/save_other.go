//go:build !linux

package main

import (
	"io"
	"os"
	"path/filepath"
)

// save copies r into the file name in dir.
func save(dir, name string, r io.Reader, buf []byte) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = io.CopyBuffer(f, r, buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
