package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// -r lays files out as host/path, as wget does; listings become an index
// file in their folder; nothing escapes the output folder.
func TestMirrorPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the ports are written with '+' on Windows")
	}
	for _, tt := range []struct {
		url  string
		kind fetch.ResourceKind
		want string // "" for an error
	}{
		{"http://h.example/a/b.html", fetch.ResourceFile, "h.example/a/b.html"},
		{"http://h.example/", fetch.ResourceFile, "h.example/index.html"},
		{"http://h.example", fetch.ResourceFile, "h.example/index.html"},
		{"http://h.example/dir/", fetch.ResourceFile, "h.example/dir/index.html"},
		{"http://h.example:8080/a%20b", fetch.ResourceFile, "h.example:8080/a b"},
		{"https://h.example/x", fetch.ResourceFile, "h.example/x"},
		{"ftp://h.example/pub/f.txt", fetch.ResourceFile, "h.example/pub/f.txt"},
		{"ftp://h.example/pub/", fetch.ResourceDirectory, "h.example/pub/.listing"},
		{"ftp://h.example:2121/f", fetch.ResourceFile, "h.example:2121/f"},
		{"gopher://h.example/0/about.txt", fetch.ResourceFile, "h.example:70/about.txt"},
		{"gopher://h.example:7070/1/sub", fetch.ResourceMenu, "h.example:7070/sub/gophermap"},
		{"gopher://h.example/", fetch.ResourceMenu, "h.example:70/gophermap"},
		{"http://h.example/a/%2e%2e/x", fetch.ResourceFile, ""},
		{"http://h.example/a%2Fb", fetch.ResourceFile, ""},
		{"gopher://h.example/0/../etc/passwd", fetch.ResourceFile, ""},
		{"ftp://h.example/a/%2e%2e/x", fetch.ResourceFile, ""},
		{"prospero://h.example//srv/pub/it's%20here.txt", fetch.ResourceFile, "h.example:1525/srv/pub/it's here.txt"},
		{"prospero://h.example//srv/pub/f.txt;OBJECT-VERSION=2", fetch.ResourceFile, "h.example:1525/srv/pub/f.txt"},
		{"prospero://h.example:21525//srv/pub/", fetch.ResourceDirectory, "h.example:21525/srv/pub/index"},
		{"prospero://h.example//srv/%2e%2e/x", fetch.ResourceFile, ""},
	} {
		u, err := url.ParseLenient(tt.url)
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		got, err := mirrorPath(u, tt.kind)
		if cerr := checkMirrorPath(u); (cerr == nil) != (err == nil) {
			t.Errorf("checkMirrorPath(%s) = %v, but mirrorPath's error is %v", tt.url, cerr, err)
		}
		if tt.want == "" {
			if err == nil {
				t.Errorf("mirrorPath(%s) = %q, want an error", tt.url, got)
			}
			continue
		}
		if err != nil || got != filepath.FromSlash(tt.want) {
			t.Errorf("mirrorPath(%s) = %q, %v; want %q", tt.url, got, err, tt.want)
		}
	}
}

// A file written by -r appears whole or not at all.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "h", "a", "f")
	if err := writeFileAtomic(name, strings.NewReader("data"), 4, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != "data" {
		t.Errorf("wrote %q", b)
	}
	short := filepath.Join(dir, "h", "short")
	if err := writeFileAtomic(short, strings.NewReader("da"), 4, time.Time{}); fetch.KindOf(err) != fetch.Incomplete {
		t.Errorf("short body: %v, want Incomplete", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "h")); len(ents) != 1 {
		t.Errorf("after a short body the folder holds %d entries, want only a/", len(ents))
	}
}

// A mirrored file gets mode 0644 whatever the umask, the times it is
// given, and replaces what was there; its temporary is gone.
func TestWriteFileAtomicModeTimes(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "h", "f")
	mod := time.Date(2025, 6, 1, 12, 0, 0, 500, time.UTC)
	for _, body := range []string{"first", "second"} {
		if err := writeFileAtomic(name, strings.NewReader(body), -1, mod); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(name); string(b) != body {
			t.Errorf("wrote %q, want %q", b, body)
		}
		if !fi.ModTime().Equal(mod) {
			t.Errorf("modified %v, want %v", fi.ModTime(), mod)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
			t.Errorf("mode %v, want 0644", fi.Mode().Perm())
		}
		if ents, _ := os.ReadDir(filepath.Dir(name)); len(ents) != 1 {
			t.Errorf("the folder holds %d entries, want the file only", len(ents))
		}
	}
	// Without times, the file's are the time of writing.
	before := time.Now().Add(-time.Minute)
	if err := writeFileAtomic(name, strings.NewReader("x"), 1, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(name); err != nil || fi.ModTime().Before(before) {
		t.Errorf("without times: %v, %v", fi.ModTime(), err)
	}
}

// -r with -o or --list is a usage error, not a silent choice.
func TestMirrorUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-r", "-o", "x", "file:///tmp/"},
		{"-r", "--list", "file:///tmp/"},
	} {
		if _, errs, code := fetchCmd(t, "", args...); code != 2 || !strings.Contains(errs, "-r") {
			t.Errorf("fetch %q: exit %d, %q; want 2", args, code, errs)
		}
	}
}

// -r stays below an http or ftp seed's folder (wget's --no-parent), and on
// the host of a gopher seed.
func TestMirrorPrefixes(t *testing.T) {
	e := &runEnv{client: &fetch.Client{Parser: url.Parser{Lenient: true}}}
	got := e.mirrorPrefixes([]string{
		"http://H.example:80/dir/",
		"http://h.example/dir/page.html?x=1",
		"http://h.example",
		"ftp://h.example/pub/",
		"ftp://h.example/pub/file.txt",
		"gopher://h.example:7070/1/sub",
		"gopher://h.example",
	})
	want := []string{
		"http://h.example/dir/",
		"http://h.example/dir/",
		"http://h.example/",
		"ftp://h.example/pub/",
		"ftp://h.example/pub/",
		"gopher://h.example:7070/",
		"gopher://h.example/",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("prefixes\n got %q\nwant %q", got, want)
	}
}
