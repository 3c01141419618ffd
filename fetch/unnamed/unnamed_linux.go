package unnamed

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

// Create creates a file without a name in the folder dir ("" for the
// current one), open for reading and writing, with mode 0666 less the
// umask once named. ok is false where the kernel or the file system
// cannot, or /proc, which Link may need, is not mounted.
func Create(dir string) (fd int, ok bool) {
	if dir == "" {
		dir = "."
	}
	if !procFD() {
		return -1, false
	}
	if _, no := refused.Load(dir); no {
		return -1, false
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o666)
	if err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
			refused.Store(dir, true)
		}
		return -1, false
	}
	return fd, true
}

// Write writes all of p to the file fd, as an *os.File's Write would: a
// short write is carried on, an interrupted one made again, and a failure
// is an *fs.PathError (Op "write") naming name.
func Write(fd int, name string, p []byte) (int, error) {
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

// Close closes the file fd, named name in an error. An interrupted close
// is not made again: on Linux the descriptor is gone either way.
func Close(fd int, name string) error {
	if err := unix.Close(fd); err != nil && err != unix.EINTR {
		return &fs.PathError{Op: "close", Path: name, Err: err}
	}
	return nil
}

// refused holds the folders whose file system refused O_TMPFILE.
var refused sync.Map

// procFD reports whether /proc/self/fd is there, through which Link
// names a file by its descriptor.
var procFD = sync.OnceValue(func() bool {
	fi, err := os.Stat("/proc/self/fd")
	return err == nil && fi.IsDir()
})

// Link gives the unnamed file fd the name name. A name that exists is an
// error satisfying errors.Is(err, fs.ErrExist): Link never replaces a
// file (link one beside it and rename that over it).
//
// It links the descriptor itself (AT_EMPTY_PATH), which kernels since
// 6.10 allow the process that opened it, and before that only one with
// CAP_DAC_READ_SEARCH; failing that, the descriptor's /proc/self/fd path,
// which costs a walk through /proc (about 5 µs a file).
func Link(fd int, name string) error {
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
