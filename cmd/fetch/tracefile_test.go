package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// --trace FILE writes -v's trace to FILE; --trace-time stamps each line.
func TestTraceOptions(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) }))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "trace.txt")
	out, errs, code := fetchCmd(t, "", "--trace", file, srv.URL+"/x")
	b, _ := os.ReadFile(file)
	if code != 0 || out != "ok\n" || errs != "" || !strings.Contains(string(b), "> GET /x HTTP/1.1\n") {
		t.Errorf("--trace: exit %d, stdout %q, stderr %q, file %q", code, out, errs, b)
	}
	_, errs, code = fetchCmd(t, "", "-v", "--trace-time", srv.URL+"/x")
	stamped := regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{6} [<>*] `)
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if code != 0 || len(lines) < 3 {
		t.Fatalf("-v --trace-time: exit %d, %q", code, errs)
	}
	for _, l := range lines {
		if !stamped.MatchString(l) {
			t.Errorf("-v --trace-time: line %q has no time", l)
		}
	}
	if _, _, code := fetchCmd(t, "", "--trace", filepath.Join(t.TempDir(), "no", "dir"), srv.URL); code != 2 {
		t.Errorf("--trace into a missing folder: exit %d, want 2", code)
	}
}

func TestStampWriter(t *testing.T) {
	var b strings.Builder
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	w := &stampWriter{w: &b, now: func() time.Time { return at }}
	w.Write([]byte("> one\n"))
	w.Write([]byte("< tw"))
	w.Write([]byte("o\n* three\n"))
	want := "03:04:05.000006 > one\n03:04:05.000006 < two\n03:04:05.000006 * three\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestTimeLeft(t *testing.T) {
	for _, tt := range []struct {
		n, size int64
		elapsed time.Duration
		final   bool
		want    string
	}{
		{0, 100, time.Second, false, "ETA --:--"},
		{50, 100, 10 * time.Second, false, "ETA 0:10"},
		{25, 100, 30 * time.Second, false, "ETA 1:30"},
		{1, 1000, 10 * time.Second, false, "ETA 2:46:30"},
		{100, 100, 75 * time.Second, true, "in 1:15"},
	} {
		if got := timeLeft(tt.n, tt.size, tt.elapsed, tt.final); got != tt.want {
			t.Errorf("timeLeft(%d, %d, %v) = %q, want %q", tt.n, tt.size, tt.elapsed, got, tt.want)
		}
	}
}
