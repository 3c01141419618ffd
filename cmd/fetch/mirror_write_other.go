//go:build !linux

package main

import (
	"os"
	"time"
)

// mirrorTemp is a mirrored file's temporary file.
type mirrorTemp struct {
	*os.File
	name string
}

// createMirrorTemp creates the temporary file for final,
// ".BASE.<pid>.<random>.part" in final's folder, mode 0644. It first
// removes what killed runs left there. A missing folder is an error
// satisfying errors.Is(err, fs.ErrNotExist).
func createMirrorTemp(final string) (*mirrorTemp, error) {
	f, err := createTemp(final)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &mirrorTemp{File: f, name: f.Name()}, nil
}

// finish closes the file and, unless mod is zero or the file is not
// complete, sets its times to mod by name (a rename keeps them). A time
// that cannot be set is no failure.
func (t *mirrorTemp) finish(complete bool, mod time.Time) error {
	err := t.File.Close()
	if err == nil && complete && !mod.IsZero() {
		os.Chtimes(t.name, mod, mod)
	}
	return err
}

// renameFile renames old to name.
func renameFile(old, name string) error { return os.Rename(old, name) }
