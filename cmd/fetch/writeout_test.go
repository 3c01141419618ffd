package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteOut(t *testing.T) {
	body := strings.Repeat("x", 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/r":
			http.Redirect(w, r, "/f", http.StatusFound)
		case "/f":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write([]byte(body))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	os.WriteFile(file, []byte("12345"), 0o644)

	for _, tt := range []struct {
		args []string
		want string // stdout after the body
		code int
	}{
		{[]string{"-w", "%{http_code} %{size_download} %{num_redirects} %{url_effective} %{content_type} %{scheme} %{exitcode}\\n", srv.URL + "/r"},
			"200 1000 1 " + srv.URL + "/f text/plain; charset=utf-8 http 0\n", 0},
		{[]string{"-w", "%{response_code} %{exitcode} [%{errormsg}] %{size_download}", srv.URL + "/missing"},
			"404 7 [", 7},
		{[]string{"-w", "%{response_code} %{size_download} %{scheme} %{filename_effective}|100%%\\t", "-o", filepath.Join(dir, "out"), "file://" + file},
			"000 5 file " + filepath.Join(dir, "out") + "|100%\t", 0},
		{[]string{"-w", "%{size_download}\\n", "file://" + file, "file://" + file}, "5\n", 0},
	} {
		out, errs, code := fetchCmd(t, "", tt.args...)
		out = strings.TrimPrefix(out, body)
		out = strings.TrimPrefix(out, "12345")
		if code != tt.code || !strings.HasPrefix(out, tt.want) {
			t.Errorf("%q: exit %d, stdout %q (stderr %q); want %d and %q", tt.args, code, out, errs, tt.code, tt.want)
		}
	}

	// %{json}, and the times in order, from the library's Timing.
	fmtFile := filepath.Join(dir, "fmt")
	os.WriteFile(fmtFile, []byte("%{stderr}%{json}"), 0o644)
	out, errs, code := fetchCmd(t, "", "-w", "@"+fmtFile, srv.URL+"/f")
	if code != 0 || out != body {
		t.Fatalf("-w @FILE: exit %d, stdout %q", code, out)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(errs), &v); err != nil {
		t.Fatalf("%%{json} on stderr: %q: %v", errs, err)
	}
	for _, wv := range woVars {
		if _, ok := v[wv.name]; !ok {
			t.Errorf("%%{json} lacks %s", wv.name)
		}
	}
	n, c, s, tot := v["time_namelookup"].(float64), v["time_connect"].(float64), v["time_starttransfer"].(float64), v["time_total"].(float64)
	if !(n > 0 && c >= n && s >= c && tot >= s) || v["size_download"].(float64) != 1000 || v["http_code"].(float64) != 200 {
		t.Errorf("%%{json} = %s", errs)
	}

	for _, args := range [][]string{
		{"-w", "%{nope}", srv.URL},
		{"-w", "%{http_code", srv.URL},
		{"-w", "@" + filepath.Join(dir, "missing"), srv.URL},
		{"-w", "x", "--dry-run", srv.URL},
	} {
		if _, errs, code := fetchCmd(t, "", args...); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, errs)
		}
	}
}
