//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package crawl

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes the lock of a frontier's folder, dir/frontier.lock, which
// the system releases when the file is closed or the process ends.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "frontier.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}
