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

	"github.com/rfc1738/fetch/fetch/fetchtest"
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
// is the gzip too. So on each of the http handler's paths: the own
// client's http, https direct and through a proxy's tunnel, and net/http's
// HTTP/2: the handler's Raw, which the command sets for the WARC file, is
// what keeps the body as sent for the record (a Capture keeps the heads
// only), and the command decodes it once for the output.
func TestWARCFile(t *testing.T) {
	text := strings.Repeat("all work and no play makes jack a dull boy\n", 200)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(text))
	zw.Close()
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zb.Bytes())
			return
		}
		io.WriteString(w, text)
	})
	srv := httptest.NewServer(handler)
	defer srv.Close()
	tsrv := httptest.NewUnstartedServer(handler)
	tsrv.EnableHTTP2 = true
	tsrv.StartTLS()
	defer tsrv.Close()
	px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: "http"})
	for _, path := range []struct {
		name  string
		args  []string
		proto string
	}{
		{"http", []string{srv.URL + "/text.txt"}, "http/1.1"},
		{"https", []string{"-k", tsrv.URL + "/text.txt"}, "http/1.1"},
		{"https through a proxy", []string{"-k", "-x", px.URL.String(), tsrv.URL + "/text.txt"}, "http/1.1"},
		{"https over HTTP/2", []string{"-k", "--http2", tsrv.URL + "/text.txt"}, "h2"},
	} {
		t.Run(path.name, func(t *testing.T) { testWARCFile(t, path.args, path.proto, text, zb.String()) })
	}
}

func testWARCFile(t *testing.T, args []string, proto, text, zipped string) {
	dir := t.TempDir()
	for _, raw := range []bool{false, true} {
		file := filepath.Join(dir, "out.warc.gz")
		args := append([]string{"--warc-file", file}, args...)
		if raw {
			args = append([]string{"--raw"}, args...)
		}
		stdout, stderr, code := fetchCmd(t, "", args...)
		if code != 0 {
			t.Fatalf("raw=%v: exit %d: %s", raw, code, stderr)
		}
		if want := map[bool]string{false: text, true: zipped}[raw]; stdout != want {
			t.Errorf("raw=%v: stdout of %d bytes, want %d", raw, len(stdout), len(want))
		}
		w := readWARCFile(t, file)
		for _, want := range []string{
			"WARC-Type: warcinfo\r\n",
			"WARC-Type: request\r\n",
			"WARC-Type: response\r\n",
			"WARC-IP-Address: 127.0.0.1\r\n",
			"GET /text.txt HTTP/1.1\r\n",
			" 200 OK\r\n", // HTTP/2.0 as net/http renders it
			"Content-Encoding: gzip\r\n",
			"\r\n\r\n" + zipped + "\r\n\r\n",
			"WARC-Protocol: " + proto + "\r\n",
		} {
			if !strings.Contains(w, want) {
				t.Errorf("raw=%v: the WARC file lacks %q", raw, want)
			}
		}
	}
}

// A --warc-cdx index that cannot be written fails the run (exit 1, the
// cause on stderr) rather than end it as a success without its index, and
// leaves no temporary file.
func TestWARCIndexUnwritable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "x")
	}))
	defer srv.Close()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "out.cdxj"), 0o755); err != nil { // in the index's way
		t.Fatal(err)
	}
	stdout, stderr, code := fetchCmd(t, "", "--warc-file", filepath.Join(dir, "out.warc.gz"), "--warc-cdx", srv.URL+"/x")
	if code != 1 || stdout != "x" || !strings.Contains(stderr, "out.cdxj") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 naming the index", code, stdout, stderr)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
