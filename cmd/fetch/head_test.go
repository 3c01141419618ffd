package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeadToFile: -I -o FILE writes the metadata to FILE, as curl writes
// headers to its -o file, and nothing to stdout; no temporary file is left.
func TestHeadToFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "f.txt")
	os.WriteFile(src, []byte("12345"), 0o644)
	dst := filepath.Join(dir, "meta")
	out, errs, code := fetchCmd(t, "", "-I", "-o", dst, "file://"+src)
	got, err := os.ReadFile(dst)
	if code != 0 || out != "" || err != nil || !strings.Contains(string(got), "kind: file\nsize: 5\n") {
		t.Fatalf("-I -o: exit %d, stdout %q, stderr %q, file %q, %v", code, out, errs, got, err)
	}
	out, _, code = fetchCmd(t, "", "-I", "--json", "-o", dst, "file://"+src)
	got, _ = os.ReadFile(dst)
	var obj map[string]any
	if code != 0 || out != "" || json.Unmarshal(got, &obj) != nil || obj["size"] != 5.0 {
		t.Errorf("-I --json -o: exit %d, stdout %q, file %q", code, out, got)
	}
	// A failed fetch leaves no file.
	missing := filepath.Join(dir, "missing")
	if _, _, code := fetchCmd(t, "", "-I", "-o", filepath.Join(dir, "meta2"), "file://"+missing); code != 7 {
		t.Errorf("-I -o on a missing file: exit %d, want 7", code)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "f.txt meta" {
		t.Errorf("files left: %q, want f.txt and meta", names)
	}
}

// TestJSONNeedsHead: --json without -I would be ignored, so it is a usage
// error (exit 2); with -I, --help or --version it is not.
func TestJSONNeedsHead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.txt")
	os.WriteFile(p, []byte("x"), 0o644)
	if out, errs, code := fetchCmd(t, "", "--json", "file://"+p); code != 2 || out != "" || !strings.Contains(errs, "--json") {
		t.Errorf("fetch --json URL: exit %d, stdout %q, stderr %q; want exit 2", code, out, errs)
	}
	for _, args := range [][]string{{"-I", "--json", "file://" + p}, {"--json", "--help"}, {"--json", "--version"}} {
		if _, errs, code := fetchCmd(t, "", args...); code != 0 {
			t.Errorf("fetch %q: exit %d (%s)", args, code, errs)
		}
	}
}
