package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// createUnnamed creates the output file for final without a name, in
// final's folder (O_TMPFILE): it gets one only when linkUnnamed gives it
// final's, so a transfer that fails, or a process that is killed, leaves
// nothing behind for anyone to mistake for a complete file, and no
// temporary name to clean up. It costs the folder one entry made instead
// of one made, renamed and removed. ok is false where the kernel or the
// file system cannot (or /proc, which linkUnnamed needs, is not mounted):
// the caller then uses a named temporary file.
//
// dir is final's folder as filepath.Split gives it ("" for the current
// one). The file is a bare descriptor, written with writeFD and closed
// with closeFD, or handed to os.NewFile.
func createUnnamed(dir string) (fd int, ok bool) {
	if dir == "" {
		dir = "."
	}
	if !procFD() {
		return -1, false
	}
	if _, no := noUnnamed.Load(dir); no {
		return -1, false
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o666)
	if err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
			noUnnamed.Store(dir, true)
		}
		return -1, false
	}
	return fd, true
}

// writeFD writes all of p to the file fd, as an *os.File's Write would:
// a short write is carried on, an interrupted one made again, and a
// failure is an *fs.PathError (Op "write") naming name.
func writeFD(fd int, name string, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := unix.Write(fd, p[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "write", Path: name, Err: err}
		}
		if m == 0 {
			return n, &fs.PathError{Op: "write", Path: name, Err: io.ErrShortWrite}
		}
		n += m
	}
	return n, nil
}

// closeFD closes the file fd, named name in an error. An interrupted
// close is not made again: on Linux the descriptor is gone either way.
func closeFD(fd int, name string) error {
	if err := unix.Close(fd); err != nil && err != unix.EINTR {
		return &fs.PathError{Op: "close", Path: name, Err: err}
	}
	return nil
}

// noUnnamed holds the folders whose file system refused O_TMPFILE.
var noUnnamed sync.Map

// procFD reports whether /proc/self/fd is there, through which
// linkUnnamed names a file by its descriptor.
var procFD = sync.OnceValue(func() bool {
	fi, err := os.Stat("/proc/self/fd")
	return err == nil && fi.IsDir()
})

// linkUnnamed gives the unnamed file fd the name name. A name that exists
// is an error satisfying errors.Is(err, fs.ErrExist).
//
// It links the descriptor itself (AT_EMPTY_PATH), which kernels since
// 6.10 allow the process that opened it, and before that only one with
// CAP_DAC_READ_SEARCH; failing that, the descriptor's /proc/self/fd path,
// which costs a walk through /proc (about 5 µs a file).
func linkUnnamed(fd int, name string) error {
	var err error
	if !noEmptyPath.Load() {
		err = unix.Linkat(fd, "", unix.AT_FDCWD, name, unix.AT_EMPTY_PATH)
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EINVAL) {
			noEmptyPath.Store(true)
		}
	}
	if noEmptyPath.Load() {
		err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
	}
	if err != nil {
		return &os.LinkError{Op: "link", Old: "/proc/self/fd/" + strconv.Itoa(fd), New: name, Err: err}
	}
	return nil
}

// noEmptyPath is set once linking a descriptor itself was refused.
var noEmptyPath atomic.Bool
