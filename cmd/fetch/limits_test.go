package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestByteCount(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"1", 1}, {"100", 100}, {"1k", 1024}, {"2K", 2048}, {"1.5M", 1572864}, {"1g", 1 << 30},
		{"0", 0}, {"", 0}, {"k", 0}, {"-5", 0}, {"1x", 0}, {"0.5", 0},
	} {
		got, err := byteCount(tt.in)
		if got != tt.want || (err != nil) != (tt.want == 0) {
			t.Errorf("byteCount(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

// --max-filesize refuses a resource larger than allowed, whether its size
// is announced or found while reading: exit 12, and no file left.
func TestMaxFilesize(t *testing.T) {
	body := strings.Repeat("z", 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.Write([]byte(body[:500]))
			w.(http.Flusher).Flush()
			w.Write([]byte(body[500:]))
			return
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.WriteFile(src, []byte(body), 0o644)
	outDir := filepath.Join(dir, "out")
	os.Mkdir(outDir, 0o755)
	for _, u := range []string{srv.URL + "/sized", srv.URL + "/chunked", "file://" + src} {
		_, errs, code := fetchCmd(t, "", "--max-filesize", "999", "-o", filepath.Join(outDir, "f"), u)
		if code != 12 || !strings.Contains(errs, "999") {
			t.Errorf("%s: exit %d (%s), want 12", u, code, errs)
		}
		if left, _ := os.ReadDir(outDir); len(left) != 0 {
			t.Errorf("%s: left %v behind", u, left)
		}
		if out, errs, code := fetchCmd(t, "", "--max-filesize", "1000", u); code != 0 || out != body {
			t.Errorf("%s: at the limit: exit %d (%s)", u, code, errs)
		}
	}
}

// --limit-rate holds a transfer to its rate: 4000 bytes at 2k (2048) a
// second take two seconds, less the burst the limiter allows at the start
// (a tenth of a second's worth). The command runs in a synctest bubble,
// on its clock: the test takes no time, and a busy machine cannot make
// the transfer look slower or faster.
func TestLimitRateOption(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	os.WriteFile(src, []byte(strings.Repeat("r", 4000)), 0o644)
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		out, errs, code := fetchCmd(t, "", "--limit-rate", "2k", "file://"+src)
		if took := time.Since(start); code != 0 || len(out) != 4000 || took < 1500*time.Millisecond || took > 2*time.Second {
			t.Errorf("--limit-rate 2k: exit %d (%s), %d bytes in %v; want 4000 in 1.5s to 2s", code, errs, len(out), took)
		}
	})
	if _, _, code := fetchCmd(t, "", "--limit-rate", "fast", "file://"+src); code != 2 {
		t.Errorf("--limit-rate fast: exit %d, want 2", code)
	}
}
