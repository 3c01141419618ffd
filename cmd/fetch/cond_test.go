package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var condTime = time.Date(2020, 5, 17, 10, 0, 0, 0, time.UTC)

func condServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		switch r.URL.Path {
		case "/named":
			w.Header().Set("Content-Disposition", `attachment; filename="real name.txt"`)
		case "/evil":
			w.Header().Set("Content-Disposition", `attachment; filename="../evil.txt"`)
		case "/dot":
			w.Header().Set("Content-Disposition", `attachment; filename=".bashrc"`)
		}
		http.ServeContent(w, r, "f.txt", condTime, strings.NewReader("content\n"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// -z fetches only what is newer than the date (If-Modified-Since), -z
// -DATE only what is not; both exit 0 when there is nothing to fetch.
func TestTimeCond(t *testing.T) {
	srv := condServer(t)
	before, after := condTime.Add(-time.Hour).Format(http.TimeFormat), condTime.Add(time.Hour).Format(http.TimeFormat)
	stamp := filepath.Join(t.TempDir(), "stamp")
	os.WriteFile(stamp, nil, 0o644)
	os.Chtimes(stamp, condTime.Add(time.Minute), condTime.Add(time.Minute))
	for _, tt := range []struct {
		cond string
		want string
	}{
		{before, "content\n"},
		{after, ""},
		{"2020-05-17", "content\n"},
		{stamp, ""},
		{"-" + after, "content\n"},
		{"-" + before, ""},
		{"-" + stamp, "content\n"},
	} {
		out, errs, code := fetchCmd(t, "", "-z", tt.cond, srv.URL+"/f")
		if code != 0 || out != tt.want || errs != "" {
			t.Errorf("-z %q: exit %d, %q, stderr %q; want 0 and %q", tt.cond, code, out, errs, tt.want)
		}
	}
	if _, _, code := fetchCmd(t, "", "-z", "yesterday-ish", srv.URL+"/f"); code != 2 {
		t.Errorf("-z with neither date nor file: exit %d, want 2", code)
	}
}

// -R gives the file the server's time, over HTTP and from a file: URL.
func TestRemoteTime(t *testing.T) {
	srv := condServer(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.WriteFile(src, []byte("x"), 0o644)
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	os.Chtimes(src, old, old)
	for _, tt := range []struct {
		url  string
		want time.Time
	}{{srv.URL + "/f", condTime}, {"file://" + src, old}} {
		out := filepath.Join(dir, "out")
		if _, errs, code := fetchCmd(t, "", "-R", "-o", out, tt.url); code != 0 {
			t.Fatalf("-R %s: exit %d (%s)", tt.url, code, errs)
		}
		if fi, err := os.Stat(out); err != nil || !fi.ModTime().Equal(tt.want) {
			t.Errorf("-R %s: mtime %v, want %v", tt.url, fi.ModTime(), tt.want)
		}
	}
}

// --etag-save keeps the ETag; --etag-compare sends it (If-None-Match), and
// an unchanged resource moves nothing and exits 0.
func TestETag(t *testing.T) {
	srv := condServer(t)
	dir := t.TempDir()
	tag := filepath.Join(dir, "etag")
	if out, _, code := fetchCmd(t, "", "--etag-save", tag, srv.URL+"/f"); code != 0 || out != "content\n" {
		t.Fatalf("--etag-save: exit %d, %q", code, out)
	}
	if b, _ := os.ReadFile(tag); string(b) != "\"v1\"\n" {
		t.Errorf("--etag-save wrote %q", b)
	}
	if out, _, code := fetchCmd(t, "", "--etag-compare", tag, srv.URL+"/f"); code != 0 || out != "" {
		t.Errorf("--etag-compare, same tag: exit %d, %q; want 0 and nothing", code, out)
	}
	os.WriteFile(tag, []byte("\"v0\"\n"), 0o644)
	if out, _, code := fetchCmd(t, "", "--etag-compare", tag, srv.URL+"/f"); code != 0 || out != "content\n" {
		t.Errorf("--etag-compare, other tag: exit %d, %q", code, out)
	}
	if out, _, code := fetchCmd(t, "", "--etag-compare", filepath.Join(dir, "none"), srv.URL+"/f"); code != 0 || out != "content\n" {
		t.Errorf("--etag-compare, no file: exit %d, %q", code, out)
	}
}

// -J takes Content-Disposition's name for -O; a name with a separator or
// a dot name is not taken, and an existing file is not overwritten.
func TestRemoteHeaderName(t *testing.T) {
	srv := condServer(t)
	dir := t.TempDir()
	if out, errs, code := fetchCmd(t, "", "-O", "-J", "--output-dir", dir, "-w", "%{filename_effective}", srv.URL+"/named"); code != 0 || out != filepath.Join(dir, "real name.txt") {
		t.Fatalf("-J: exit %d, -w %q (%s)", code, out, errs)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "real name.txt")); err != nil || string(b) != "content\n" {
		t.Errorf("-J: %q, %v", b, err)
	}
	if _, errs, code := fetchCmd(t, "", "-O", "-J", "--output-dir", dir, srv.URL+"/named"); code != 11 || !strings.Contains(errs, "not overwritten") {
		t.Errorf("-J onto an existing file: exit %d (%s), want 11", code, errs)
	}
	for _, p := range []string{"evil", "dot"} {
		_, errs, code := fetchCmd(t, "", "-O", "-J", "--output-dir", dir, srv.URL+"/"+p)
		if code != 0 || !strings.Contains(errs, "-J:") {
			t.Errorf("-J %s: exit %d (%s)", p, code, errs)
		}
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("-J %s: the URL's name was not used: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "evil.txt")); err == nil {
		t.Error("-J wrote outside the folder")
	}
	if _, _, code := fetchCmd(t, "", "-J", srv.URL+"/named"); code != 2 {
		t.Errorf("-J without -O: exit %d, want 2", code)
	}
}
