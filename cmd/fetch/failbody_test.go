package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --fail-with-body writes an error status's page, to stdout or the file,
// and keeps the error's exit code; without it nothing is written.
func TestFailWithBody(t *testing.T) {
	page := strings.Repeat("not here\n", 40000) // past a spool's memory
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			w.Write([]byte("fine\n"))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(page))
	}))
	defer srv.Close()
	dir := t.TempDir()

	if out, _, code := fetchCmd(t, "", srv.URL+"/x"); code != 7 || out != "" {
		t.Errorf("without: exit %d, %d bytes out", code, len(out))
	}
	if out, _, code := fetchCmd(t, "", "--fail-with-body", srv.URL+"/x"); code != 7 || out != page {
		t.Errorf("--fail-with-body: exit %d, %d bytes out; want 7 and the page", code, len(out))
	}
	if out, _, code := fetchCmd(t, "", "--fail-with-body", "--parallel", "2", srv.URL+"/ok", srv.URL+"/x", srv.URL+"/ok"); code != 7 || out != "fine\n"+page+"fine\n" {
		t.Errorf("--fail-with-body --parallel: exit %d, %d bytes out", code, len(out))
	}
	f := filepath.Join(dir, "page.html")
	if _, _, code := fetchCmd(t, "", "--fail-with-body", "-o", f, srv.URL+"/x"); code != 7 {
		t.Errorf("--fail-with-body -o: exit %d", code)
	}
	if got, _ := os.ReadFile(f); string(got) != page {
		t.Errorf("--fail-with-body -o: the file has %d bytes, want the page", len(got))
	}
	if _, errs, code := fetchCmd(t, "", "--fail-with-body", "file://"+f); code != 2 {
		t.Errorf("--fail-with-body file: exit %d (%s), want 2", code, errs)
	}
}
