package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// cutServer serves a 100000-byte body whose first request is cut after
// 40000 bytes; it honours Range unless noRange. It records each request's
// Range.
type cutServer struct {
	mu      sync.Mutex
	ranges  []string
	noRange bool
}

var cutBody = func() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 100000; i++ {
		fmt.Fprintf(&b, "%08d\n", i)
	}
	return b.Bytes()[:100000]
}()

func (s *cutServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := len(s.ranges)
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	s.mu.Unlock()
	if n == 0 {
		w.Header().Set("Content-Length", "100000")
		w.Write(cutBody[:40000])
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	if s.noRange {
		r.Header.Del("Range")
	}
	http.ServeContent(w, r, "f.bin", time.Time{}, bytes.NewReader(cutBody))
}

// A retry after a cut transfer asks for the rest (Range) and goes on with
// the file, or with stdout; a server that sends everything again
// replaces a file's bytes, and fails stdout's transfer (exit 9) rather
// than repeat what it already holds.
func TestRetryResumes(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name      string
		noRange   bool
		toFile    bool
		code      int
		wantRange string
	}{
		{"file", false, true, 0, "bytes=40000-"},
		{"stdout", false, false, 0, "bytes=40000-"},
		{"file, no range", true, true, 0, "bytes=40000-"},
		{"stdout, no range", true, false, 9, "bytes=40000-"},
	} {
		cs := &cutServer{noRange: tt.noRange}
		srv := httptest.NewServer(cs)
		out := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
		args := []string{"--retry", "2", "--retry-delay", "0.01", srv.URL + "/f.bin"}
		if tt.toFile {
			args = append([]string{"-o", out}, args...)
		}
		stdout, errs, code := fetchCmd(t, "", args...)
		srv.Close()
		if code != tt.code {
			t.Errorf("%s: exit %d (%s), want %d", tt.name, code, errs, tt.code)
		}
		if len(cs.ranges) != 2 || cs.ranges[0] != "" || cs.ranges[1] != tt.wantRange {
			t.Errorf("%s: Range fields %q, want none then %q", tt.name, cs.ranges, tt.wantRange)
		}
		got := []byte(stdout)
		if tt.toFile {
			got, _ = os.ReadFile(out)
		}
		switch {
		case tt.code == 0 && !bytes.Equal(got, cutBody):
			t.Errorf("%s: %d bytes, not the body's 100000", tt.name, len(got))
		case tt.code != 0 && !bytes.Equal(got, cutBody[:40000]):
			t.Errorf("%s: %d bytes on stdout, want the first 40000 once", tt.name, len(got))
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporaries left: %q", left)
	}
}

// --retry retries 500 and 502 as curl does; --retry-all-errors any
// failure another try could change; --retry-max-time stops retrying. A
// delay of 10 ms (not 0, the backoff from a second) keeps the test short.
func TestRetryCurlStatuses(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		n := hits[r.URL.Path]
		mu.Unlock()
		var code int
		fmt.Sscanf(r.URL.Path, "/%d", &code)
		if n == 1 {
			w.WriteHeader(code)
			return
		}
		w.Write([]byte("ok\n"))
	}))
	defer srv.Close()
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"--retry", "1", "--retry-delay", "0.01", srv.URL + "/500"}, 0},
		{[]string{"--retry", "1", "--retry-delay", "0.01", srv.URL + "/502"}, 0},
		{[]string{srv.URL + "/500/b"}, 1},
		{[]string{"--retry", "1", "--retry-delay", "0.01", srv.URL + "/404"}, 7},
		{[]string{"--retry", "1", "--retry-delay", "0.01", "--retry-all-errors", srv.URL + "/404/b"}, 0},
		{[]string{"--retry", "3", "--retry-delay", "5", "--retry-max-time", "1", srv.URL + "/503"}, 1},
	} {
		out, errs, code := fetchCmd(t, "", tt.args...)
		if code != tt.code || code == 0 && out != "ok\n" {
			t.Errorf("%q: exit %d, %q (%s); want %d", tt.args, code, out, errs, tt.code)
		}
	}
}
