package unnamed

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestLink: the folder shows nothing while the file is written, Link
// names it (by its descriptor, then through /proc/self/fd), and a name
// that is there already is not replaced.
func TestLink(t *testing.T) {
	defer noEmptyPath.Store(noEmptyPath.Load())
	for _, viaProc := range []bool{false, true} {
		noEmptyPath.Store(viaProc)
		dir := t.TempDir()
		fd, ok := Create(dir)
		if !ok {
			t.Skip("no O_TMPFILE in", dir)
		}
		if _, err := Write(fd, "f", []byte("new")); err != nil {
			t.Fatal(err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("the folder holds %d entries while the file is written", len(ents))
		}
		name := filepath.Join(dir, "f")
		if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Link(fd, name); !errors.Is(err, fs.ErrExist) {
			t.Fatalf("Link over a file: %v, want fs.ErrExist", err)
		}
		os.Remove(name)
		if err := Link(fd, name); err != nil {
			t.Fatal(err)
		}
		if err := Close(fd, name); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(name); string(b) != "new" {
			t.Errorf("viaProc=%v: %q, want %q", viaProc, b, "new")
		}
	}
}

// TestCreateMissingFolder: a folder that is not there makes no file.
func TestCreateMissingFolder(t *testing.T) {
	if _, ok := Create(filepath.Join(t.TempDir(), "missing")); ok {
		t.Error("Create made a file in a missing folder")
	}
}
