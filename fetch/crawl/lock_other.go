//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package crawl

import (
	"os"
	"path/filepath"
)

// lockDir opens dir/frontier.lock; on this system it locks nothing.
func lockDir(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, "frontier.lock"), os.O_RDWR|os.O_CREATE, 0o644)
}
