package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cookie set on a redirect goes with the next hop once a jar is kept
// (-b, -c); -c writes the jar in Netscape format, which -b reads back; -j
// leaves out its session cookies; -b N=V sends a cookie as given.
func TestCookieOptions(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/start":
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s3ss", Path: "/"})
			http.SetCookie(w, &http.Cookie{Name: "pref", Value: "dark", Path: "/", MaxAge: 3600})
			http.Redirect(w, r, "/private", http.StatusFound)
		case "/private":
			if c, err := r.Cookie("sid"); err != nil || c.Value != "s3ss" {
				http.Error(w, "no session", http.StatusForbidden)
				return
			}
			io.WriteString(w, "welcome")
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	jar := filepath.Join(dir, "jar.txt")
	for _, tt := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{srv.URL + "/start"}, "", 6}, // no jar: as curl without -b
		{[]string{"-b", "", srv.URL + "/start"}, "welcome", 0},
		{[]string{"-b", filepath.Join(dir, "none.txt"), srv.URL + "/start"}, "welcome", 0},
		{[]string{"-c", jar, srv.URL + "/start"}, "welcome", 0},
		{[]string{"-b", jar, srv.URL + "/private"}, "welcome", 0},
		{[]string{"-j", "-b", jar, srv.URL + "/private"}, "", 6},
		{[]string{"-b", "sid=s3ss; other=1", srv.URL + "/private"}, "welcome", 0},
		{[]string{"-b", "sid=s3ss", "gopher://127.0.0.1:1/"}, "", 2},
	} {
		out, errs, code := fetchCmd(t, "", append([]string{"-sS"}, tt.args...)...)
		if code != tt.code || out != tt.want {
			t.Errorf("fetch %q: exit %d, out %q, err %q; want exit %d, %q", tt.args, code, out, errs, tt.code, tt.want)
		}
	}
	b, err := os.ReadFile(jar)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	host = host[:strings.IndexByte(host, ':')]
	for _, line := range []string{host + "\tFALSE\t/\tFALSE\t0\tsid\ts3ss\n", "\tpref\tdark\n"} {
		if !strings.Contains(string(b), line) {
			t.Errorf("-c wrote\n%s\nwithout %q", b, line)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".fetch-cookies-") {
			t.Errorf("a temporary file was left: %s", e.Name())
		}
	}
}
