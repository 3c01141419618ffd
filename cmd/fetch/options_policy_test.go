package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPolicyOptions(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("inside\n"))
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(file, []byte("alpha\n"), 0o644)

	tests := []struct {
		args []string
		out  string
		code int
	}{
		{[]string{srv.URL + "/"}, "inside\n", 0},
		{[]string{"--no-private", srv.URL + "/"}, "", 11},
		{[]string{"--no-private", "http://localhost:8080/"}, "", 11},
		{[]string{"--allow-schemes", "http,https", "file://" + file}, "", 11},
		{[]string{"--allow-schemes", "FILE", "file://" + file}, "alpha\n", 0},
		{[]string{"--allow-schemes", "http,bogus", "file://" + file}, "", 2},
		// Credentials given apart from the URL reach FTP's USER line: a
		// TAB in them is refused before any connection.
		{[]string{"-u", "Q\tZ:pw", "ftp://127.0.0.1:2121/f"}, "", 11},
	}
	for _, tt := range tests {
		out, errs, code := fetchCmd(t, "", tt.args...)
		if code != tt.code || out != tt.out {
			t.Errorf("fetch %q: %q, exit %d (%s); want %q, exit %d", tt.args, out, code, strings.TrimSpace(errs), tt.out, tt.code)
		}
	}
}
