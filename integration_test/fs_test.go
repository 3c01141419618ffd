//go:build integration

package integration_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
)

// newFS returns fetch.NewFS over root, with every built-in scheme.
func newFS(t *testing.T, root string) fs.FS {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	c := new(fetch.Client)
	schemes.Register(c)
	t.Cleanup(func() { c.Close() })
	fsys, err := fetch.NewFS(ctx, c, root)
	if err != nil {
		t.Fatalf("NewFS(%s): %v", root, err)
	}
	return fsys
}

// walk returns every path fs.WalkDir visits.
func walk(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		t.Fatalf("WalkDir: %v", err)
	}
	return paths
}

// TestFSFTP: testing/fstest over vsftpd's /pub tree, and fs.WalkDir over it.
func TestFSFTP(t *testing.T) {
	fsys := newFS(t, "ftp://"+env(t, "FETCH_IT_FTP_ADDR")+"/pub/")
	if err := fstest.TestFS(fsys, "hello.txt", "nested/deep/er/file.txt", "with space/name with space.txt"); err != nil {
		t.Fatal(err)
	}
	want := ". hello.txt nested nested/deep nested/deep/er nested/deep/er/file.txt with space with space/name with space.txt"
	if got := strings.Join(walk(t, fsys), " "); got != want {
		t.Errorf("WalkDir visited\n%s\nwant\n%s", got, want)
	}
	b, err := fs.ReadFile(fsys, "with space/name with space.txt")
	if err != nil || string(b) != "spaced out\n" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	info, err := fs.Stat(fsys, "hello.txt")
	if err != nil || info.Size() != int64(len("hello from vsftpd\n")) || info.ModTime().IsZero() {
		t.Errorf("Stat(hello.txt) = %v, %v: want its size and modification time", info, err)
	}
}

// TestFSGopher: testing/fstest over gophernicus's hole, menus as
// directories, items as files named by their selectors' last elements (the
// search item is left out, and so is the ".." item of the menu gophernicus
// makes for /sub/).
func TestFSGopher(t *testing.T) {
	base, _ := gopherBase(t)
	fsys := newFS(t, base+"/1/")
	if err := fstest.TestFS(fsys, "text.txt", "bin.dat", "sub/inner.txt"); err != nil {
		t.Fatal(err)
	}
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, "|"); got != "bin.dat|sub|text.txt" {
		t.Errorf("top menu as a directory: %s", got)
	}
	b, err := fs.ReadFile(fsys, "bin.dat")
	if err != nil || !bytes.Equal(b, gopherFile(t, "bin.dat")) {
		t.Errorf("ReadFile(bin.dat): %d bytes, %v; want the file's %d", len(b), err, len(gopherFile(t, "bin.dat")))
	}
	want := ". bin.dat sub sub/inner.txt text.txt"
	if got := strings.Join(walk(t, fsys), " "); got != want {
		t.Errorf("WalkDir visited %q, want %q", got, want)
	}
}

// TestFSProspero: testing/fstest over a Prospero directory (links as
// entries, listed with Client.List). The server replays recorded replies:
// /srv/prospero/pub/docs is a directory it can list whole.
func TestFSProspero(t *testing.T) {
	addr := env(t, "FETCH_IT_PROSPERO_ADDR")
	dir := env(t, "FETCH_IT_PROSPERO_DIR")
	fsys := newFS(t, "prospero://"+addr+"//srv/prospero/pub/docs")
	if err := fstest.TestFS(fsys, "one.txt", "two.txt"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(walk(t, fsys), " "); got != ". one.txt two.txt" {
		t.Errorf("WalkDir visited %q", got)
	}
	b, err := fs.ReadFile(fsys, "two.txt")
	want, _ := os.ReadFile(filepath.Join(dir, "pub", "docs", "two.txt"))
	if err != nil || !bytes.Equal(b, want) {
		t.Errorf("ReadFile(two.txt) = %q, %v; want %q", b, err, want)
	}
}
