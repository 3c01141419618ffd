package main

import (
	"io"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// save copies r into an unnamed file in dir (O_TMPFILE) and names it
// name once all of r is there, as fetch's -O does on Linux.
func save(dir, name string, r io.Reader, buf []byte) error {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o666)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := unix.Write(fd, buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	return unix.Linkat(fd, "", unix.AT_FDCWD, filepath.Join(dir, name), unix.AT_EMPTY_PATH)
}
