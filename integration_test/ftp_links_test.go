//go:build integration

package integration_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// TestFTPLinks: vsftpd lists symbolic links as "l" lines; the Lister
// lists each as what it leads to (CWD enters a folder, SIZE sizes a
// file), and a link to the folder itself or its parent by that folder's
// own URL, so that --list, -r and NewFS see the tree and never go round
// the cycle.
func TestFTPLinks(t *testing.T) {
	base := ftpBase(t)
	es, skipped, trace := ftpList(t, base+"/links/")
	if skipped != 0 {
		t.Errorf("%d lines skipped; trace:\n%s", skipped, trace)
	}
	checkEntry(t, es, "target", fetch.ResourceDirectory, base+"/links/target/", -1)
	checkEntry(t, es, "dirlink", fetch.ResourceDirectory, base+"/links/dirlink/", -1)
	checkEntry(t, es, "filelink", fetch.ResourceFile, base+"/links/filelink", int64(len("linked\n")))
	checkEntry(t, es, "loop", fetch.ResourceDirectory, base+"/links/", -1)
	checkEntry(t, es, "up", fetch.ResourceDirectory, base+"/", -1)

	r := runFetch(t, "", nil, "--list", base+"/links/")
	wantCode(t, r, 0, "--list")
	for _, u := range []string{base + "/links/dirlink/\n", base + "/links/filelink\n"} {
		if !strings.Contains(string(r.Stdout), u) {
			t.Errorf("--list lacks %s:\n%s", u, r.Stdout)
		}
	}
	r = runFetch(t, "", nil, "-s", base+"/links/filelink")
	wantCode(t, r, 0, "fetch the file link")
	if string(r.Stdout) != "linked\n" {
		t.Errorf("file link: %q", r.Stdout)
	}

	out := t.TempDir()
	r = runFetch(t, "", nil, "-r", "--output-dir", out, base+"/links/")
	wantCode(t, r, 0, "fetch -r "+base+"/links/")
	host := strings.TrimPrefix(base, "ftp://") + "/links/"
	var got []string
	for name, b := range mirrored(t, out) {
		if strings.HasSuffix(name, "/.listing") {
			continue
		}
		got = append(got, strings.TrimPrefix(name, host))
		if string(b) != "linked\n" {
			t.Errorf("%s: %q", name, b)
		}
	}
	slices.Sort(got)
	if want := []string{"dirlink/t.txt", "filelink", "target/t.txt"}; !slices.Equal(got, want) {
		t.Errorf("-r mirrored %q, want %q", got, want)
	}

	fsys := newFS(t, base+"/links/")
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if len(files) > 50 {
			t.Fatalf("a cycle: %q", files)
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"dirlink/t.txt", "filelink", "target/t.txt"}; !slices.Equal(files, want) {
		t.Errorf("WalkDir found %q, want %q", files, want)
	}
}
