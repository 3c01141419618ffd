package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGlobExpand(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"http://h/x", []string{"http://h/x"}},
		{"http://h/[1-3]", []string{"http://h/1", "http://h/2", "http://h/3"}},
		{"http://h/[08-11]", []string{"http://h/08", "http://h/09", "http://h/10", "http://h/11"}},
		{"http://h/[001-100:40]", []string{"http://h/001", "http://h/041", "http://h/081"}},
		{"http://h/[a-c]", []string{"http://h/a", "http://h/b", "http://h/c"}},
		{"http://h/[A-E:2]", []string{"http://h/A", "http://h/C", "http://h/E"}},
		{"http://{a,b}/[1-2]", []string{"http://a/1", "http://a/2", "http://b/1", "http://b/2"}},
		{"http://h/{one}", []string{"http://h/one"}},
		{"http://h/\\[1-2\\]", []string{"http://h/[1-2]"}},
		{"http://[::1]:80/[1-2]", []string{"http://[::1]:80/1", "http://[::1]:80/2"}},
		{"http://[fe80::1%25eth0]/", []string{"http://[fe80::1%25eth0]/"}},
		{"http://h/a[b", []string{"http://h/a[b"}},
	} {
		g, err := parseGlob(tt.in)
		if err != nil {
			t.Errorf("parseGlob(%q): %v", tt.in, err)
			continue
		}
		var got []string
		for u := range g.expand() {
			got = append(got, u)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"http://h/{a,b", "http://h/{a,{b}}", "http://h/[3-1]", "http://h/[1-2:0]", "http://h/[a-Z]", "http://h/[1-x]",
		"http://h/[0-9999999][0-9999999][0-9999999]"} {
		if _, err := parseGlob(bad); err == nil {
			t.Errorf("parseGlob(%q) succeeded", bad)
		}
	}
	if got := globName("f#1-#2-#3-#x#", []string{"a", "b"}); got != "fa-b-#3-#x#" {
		t.Errorf("globName = %q", got)
	}
}

// Globs on the command line fetch every URL they stand for, in curl's
// order; #N in -o names each file; -g takes the brackets as they are.
func TestGlobFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(r.URL.RequestURI() + "\n"))
	}))
	defer srv.Close()
	out, errs, code := fetchCmd(t, "", srv.URL+"/{x,y}/[1-2]")
	if code != 0 || out != "/x/1\n/x/2\n/y/1\n/y/2\n" {
		t.Errorf("glob: exit %d, %q (%s)", code, out, errs)
	}
	dir := t.TempDir()
	_, errs, code = fetchCmd(t, "", "--parallel", "3", "-o", filepath.Join(dir, "f_#2_#1.txt"), srv.URL+"/{x,y}/[01-02]")
	if code != 0 {
		t.Fatalf("-o with #N: exit %d (%s)", code, errs)
	}
	for _, n := range []string{"f_01_x.txt", "f_02_x.txt", "f_01_y.txt", "f_02_y.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		parts := strings.Split(strings.TrimSuffix(n, ".txt"), "_")
		if err != nil || string(b) != "/"+parts[2]+"/"+parts[1]+"\n" {
			t.Errorf("%s: %q, %v", n, b, err)
		}
	}
	// A name that is the same for two URLs is refused for the second.
	if _, errs, code := fetchCmd(t, "", "-o", filepath.Join(dir, "same#2"), srv.URL+"/[1-2]"); code != 2 || !strings.Contains(errs, "already writes") {
		t.Errorf("-o without the glob's number: exit %d (%s), want 2", code, errs)
	}
	if out, errs, code := fetchCmd(t, "", "-g", srv.URL+"/{x,y}"); code != 0 || out != "/%7Bx,y%7D\n" {
		t.Errorf("-g: exit %d, %q (%s)", code, out, errs)
	}
	if _, _, code := fetchCmd(t, "", srv.URL+"/[3-1]"); code != 3 {
		t.Errorf("a bad glob: exit %d, want 3", code)
	}
}
