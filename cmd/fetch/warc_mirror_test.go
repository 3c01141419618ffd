package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// -r --warc-file records the 404 of a broken link, writes an identical
// page again as a revisit record, rotates at --warc-max-size, and
// --warc-cdx indexes the records, sorted.
func TestMirrorWARC(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<a href="/a">a</a><a href="/b">b</a><a href="/gone">x</a>`)
		case "/a", "/b":
			io.WriteString(w, strings.Repeat("the same payload ", 100))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	warcPath := filepath.Join(dir, "crawl.warc")
	_, errs, code := fetchCmd(t, "", "-r", "--no-robots", "--parallel", "1", "--output-dir", filepath.Join(dir, "m"),
		"--warc-file", warcPath, "--warc-max-size", "2k", "--warc-cdx", srv.URL+"/")
	if code != 7 { // the broken link
		t.Errorf("exit %d, %s", code, errs)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "crawl*.warc"))
	if len(names) < 2 {
		t.Fatalf("files %q, want rotation", names)
	}
	var all strings.Builder
	for _, n := range names {
		b, _ := os.ReadFile(n)
		if !strings.HasPrefix(string(b), "WARC/1.1\r\nWARC-Type: warcinfo\r\n") {
			t.Errorf("%s does not begin with a warcinfo record", n)
		}
		all.Write(b)
	}
	s := all.String()
	if strings.Count(s, "WARC-Type: revisit\r\n") != 1 || !strings.Contains(s, "HTTP/1.1 404 ") {
		t.Errorf("revisit records: %d; a 404 recorded: %v", strings.Count(s, "WARC-Type: revisit\r\n"), strings.Contains(s, "HTTP/1.1 404 "))
	}
	idx, err := os.ReadFile(filepath.Join(dir, "crawl.cdxj"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(idx)), "\n")
	if len(lines) != 4 || !slices.IsSorted(lines) || !strings.Contains(string(idx), `"status":"404"`) || !strings.Contains(string(idx), "warc/revisit") {
		t.Errorf("index:\n%s", idx)
	}
}
