package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readWARCFile returns a WARC file's text, gunzipped when it is gzip.
func readWARCFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return string(b)
}

// TestWARCFile: --warc-file records an HTTP fetch with its body as the
// server sent it (gzip), while the output is decoded; with --raw the output
// is the gzip too.
func TestWARCFile(t *testing.T) {
	text := strings.Repeat("all work and no play makes jack a dull boy\n", 200)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(text))
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zb.Bytes())
			return
		}
		io.WriteString(w, text)
	}))
	defer srv.Close()
	dir := t.TempDir()
	for _, raw := range []bool{false, true} {
		file := filepath.Join(dir, "out.warc.gz")
		args := []string{"--warc-file", file, srv.URL + "/text.txt"}
		if raw {
			args = append([]string{"--raw"}, args...)
		}
		stdout, stderr, code := fetchCmd(t, "", args...)
		if code != 0 {
			t.Fatalf("raw=%v: exit %d: %s", raw, code, stderr)
		}
		if want := map[bool]string{false: text, true: zb.String()}[raw]; stdout != want {
			t.Errorf("raw=%v: stdout of %d bytes, want %d", raw, len(stdout), len(want))
		}
		w := readWARCFile(t, file)
		for _, want := range []string{
			"WARC-Type: warcinfo\r\n",
			"WARC-Type: request\r\n",
			"WARC-Type: response\r\n",
			"WARC-IP-Address: 127.0.0.1\r\n",
			"GET /text.txt HTTP/1.1\r\n",
			"HTTP/1.1 200 OK\r\n",
			"Content-Encoding: gzip\r\n",
			"\r\n\r\n" + zb.String() + "\r\n\r\n",
		} {
			if !strings.Contains(w, want) {
				t.Errorf("raw=%v: the WARC file lacks %q", raw, want)
			}
		}
	}
}
