package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -o - is stdout; --create-dirs makes missing folders, and without it the
// error names the folder; two -O URLs with one name are an error.
func TestOutputOptions(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a", "same.txt")
	b := filepath.Join(dir, "b", "same.txt")
	os.MkdirAll(filepath.Dir(a), 0o755)
	os.MkdirAll(filepath.Dir(b), 0o755)
	os.WriteFile(a, []byte("alpha\n"), 0o644)
	os.WriteFile(b, []byte("beta\n"), 0o644)

	if out, errs, code := fetchCmd(t, "", "-o", "-", "file://"+a); code != 0 || out != "alpha\n" {
		t.Errorf("-o -: exit %d, %q %q", code, out, errs)
	}
	if _, err := os.Stat("-"); err == nil {
		os.Remove("-")
		t.Error("-o - made a file named -")
	}
	if out, _, code := fetchCmd(t, "", "-o", "-", "file://"+a, "file://"+b); code != 0 || out != "alpha\nbeta\n" {
		t.Errorf("-o - with two URLs: exit %d, %q", code, out)
	}

	deep := filepath.Join(dir, "new", "deeper", "f.txt")
	_, errs, code := fetchCmd(t, "", "-o", deep, "file://"+a)
	if code == 0 || !strings.Contains(errs, "--create-dirs") || strings.Contains(errs, ".part") {
		t.Errorf("-o into a missing folder: exit %d, %q; want a failure naming --create-dirs", code, errs)
	}
	if _, errs, code := fetchCmd(t, "", "--create-dirs", "-o", deep, "file://"+a); code != 0 {
		t.Errorf("--create-dirs -o: exit %d %s", code, errs)
	} else if got, _ := os.ReadFile(deep); string(got) != "alpha\n" {
		t.Errorf("--create-dirs -o wrote %q", got)
	}
	od := filepath.Join(dir, "od", "sub")
	if _, errs, code := fetchCmd(t, "", "--create-dirs", "-O", "--output-dir", od, "file://"+a); code != 0 {
		t.Errorf("--create-dirs --output-dir: exit %d %s", code, errs)
	} else if got, _ := os.ReadFile(filepath.Join(od, "same.txt")); string(got) != "alpha\n" {
		t.Errorf("--create-dirs --output-dir wrote %q", got)
	}

	two := t.TempDir()
	_, errs, code = fetchCmd(t, "", "-O", "--output-dir", two, "file://"+a, "file://"+b)
	if code != 2 || !strings.Contains(errs, "URL 1 of the run already writes") {
		t.Errorf("two -O URLs with one name: exit %d, %q; want 2", code, errs)
	}
	if got, _ := os.ReadFile(filepath.Join(two, "same.txt")); string(got) != "alpha\n" {
		t.Errorf("two -O URLs with one name: the file holds %q, want the first URL's", got)
	}
	// Another run writes the file again: a claim lasts one run.
	if _, errs, code := fetchCmd(t, "", "-O", "--output-dir", two, "--retry", "1", "file://"+a); code != 0 {
		t.Errorf("-O again: exit %d %s", code, errs)
	}
}
