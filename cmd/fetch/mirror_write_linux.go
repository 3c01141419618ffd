package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/rfc1738/fetch/fetch/unnamed"
	"golang.org/x/sys/unix"
)

// mirrorTemp is a mirrored file's temporary file, a bare descriptor: an
// *os.File would cost each file four fcntl calls and a failed epoll_ctl
// when opened (the runtime tries to poll it), and its times would be set
// by name after the rename. Per file: openat, write, utimensat on the
// descriptor, close, rename.
type mirrorTemp struct {
	fd   int
	name string
}

// createMirrorTemp creates the temporary file for final,
// ".BASE.<pid>.<random>.part" in final's folder, mode 0644. It first
// removes what killed runs left there. A missing folder is an error
// satisfying errors.Is(err, fs.ErrNotExist).
func createMirrorTemp(final string) (*mirrorTemp, error) {
	dir, base := filepath.Split(final)
	removeStaleParts(dir)
	for range 100 {
		name := tempName(dir, base)
		dirMu.Lock()
		fd, err := unix.Open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
		dirMu.Unlock()
		if err == unix.EEXIST {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		t := &mirrorTemp{fd: fd, name: name}
		if umask()&0o644 != 0 {
			// The mode is 0644 whatever the umask, as a mirror's files
			// have always been.
			if err := unix.Fchmod(fd, 0o644); err != nil {
				t.finish(false, time.Time{})
				os.Remove(name)
				return nil, &os.PathError{Op: "chmod", Path: name, Err: err}
			}
		}
		return t, nil
	}
	return nil, fmt.Errorf("cannot create a temporary file for %s", final)
}

func (t *mirrorTemp) Write(p []byte) (int, error) { return unnamed.Write(t.fd, t.name, p) }

// finish sets the file's times to mod (unless it is zero, or the file is
// not complete) and closes it. A time that cannot be set is no failure,
// as it was not when set by name.
func (t *mirrorTemp) finish(complete bool, mod time.Time) error {
	if complete && !mod.IsZero() {
		ts := unix.NsecToTimespec(mod.UnixNano())
		times := [2]unix.Timespec{ts, ts}
		// utimensat(fd, NULL, times, 0): futimens(3).
		unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(t.fd), 0, uintptr(unsafe.Pointer(&times[0])), 0, 0, 0)
	}
	return unnamed.Close(t.fd, t.name)
}

// renameFile renames old to name: os.Rename would first look at name
// (an lstat), to refuse a folder there, which rename(2) refuses anyway.
func renameFile(old, name string) error {
	if err := unix.Rename(old, name); err != nil {
		return &os.LinkError{Op: "rename", Old: old, New: name, Err: err}
	}
	return nil
}

// umask is the process's file mode creation mask, read once from
// /proc/self/status (setting it to read it would race with files being
// created); all bits when it cannot be read.
var umask = sync.OnceValue(func() uint32 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0o777
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			if err != nil {
				return 0o777
			}
			return uint32(m)
		}
	}
	return 0o777
})
