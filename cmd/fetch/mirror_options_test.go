package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/url"
)

// mirrorSite serves a small site and records the paths asked.
func mirrorSite(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var paths []string
	mod := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		p := r.URL.RequestURI()
		if r.Header.Get("If-Modified-Since") != "" {
			p += " conditional"
		}
		paths = append(paths, p)
		mu.Unlock()
		pages := map[string]string{
			"/robots.txt": "User-agent: *\nDisallow: /private/\n",
			"/a/b/":       `<a href="p.html">p</a><a href="i.png">i</a><a href="d.txt">d</a><a href="/private/x">x</a><a href="../up.html">up</a>`,
			"/a/b/p.html": `<img src="q.gif">`,
			"/a/b/i.png":  "png",
			"/a/b/d.txt":  "txt",
			"/a/b/q.gif":  "gif",
			"/a/up.html":  "up",
			"/private/x":  "secret",
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/") || strings.HasSuffix(r.URL.Path, ".html") {
			w.Header().Set("Content-Type", "text/html")
		}
		http.ServeContent(w, r, "", mod, strings.NewReader(body))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(paths)
	}
}

// files lists the files under dir, relative, with "/".
func files(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// wget's mirror options, each shaping what -r fetches and writes.
func TestMirrorOptions(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string // files, the host folder as H
	}{
		{nil, []string{"H/a/b/d.txt", "H/a/b/i.png", "H/a/b/index.html", "H/a/b/p.html"}},
		{[]string{"--accept", "png,*.txt"}, []string{"H/a/b/d.txt", "H/a/b/i.png"}},
		{[]string{"--reject", ".png"}, []string{"H/a/b/d.txt", "H/a/b/index.html", "H/a/b/p.html"}},
		{[]string{"--reject-regex", `\.(txt|png)$`}, []string{"H/a/b/index.html", "H/a/b/p.html"}},
		{[]string{"--accept-regex", `p\.html$`}, []string{"H/a/b/p.html"}},
		{[]string{"--no-host-directories", "--cut-dirs", "1"}, []string{"b/d.txt", "b/i.png", "b/index.html", "b/p.html"}},
		{[]string{"--parent"}, []string{"H/a/b/d.txt", "H/a/b/i.png", "H/a/b/index.html", "H/a/b/p.html", "H/a/up.html"}},
		{[]string{"--page-requisites"}, []string{"H/a/b/d.txt", "H/a/b/i.png", "H/a/b/index.html", "H/a/b/p.html", "H/a/b/q.gif"}},
		{[]string{"--no-robots", "--parent", "-l", "1"}, []string{"H/a/b/d.txt", "H/a/b/i.png", "H/a/b/index.html", "H/a/b/p.html", "H/a/up.html", "H/private/x"}},
		{[]string{"--domains", "example.org"}, []string{"H/a/b/index.html"}},
	} {
		srv, _ := mirrorSite(t)
		dir := t.TempDir()
		args := append([]string{"-r", "-l", "1", "--output-dir", dir}, tt.args...)
		_, errs, code := fetchCmd(t, "", append(args, srv.URL+"/a/b/")...)
		if code != 0 {
			t.Errorf("%q: exit %d, %s", tt.args, code, errs)
		}
		host := strings.Replace(strings.TrimPrefix(srv.URL, "http://"), ":", string(hostPortSep()), 1)
		var want []string
		for _, w := range tt.want {
			want = append(want, strings.Replace(w, "H", host, 1))
		}
		if got := files(t, dir); !slices.Equal(got, want) {
			t.Errorf("%q: files\n got %q\nwant %q", tt.args, got, want)
		}
	}
}

func hostPortSep() byte {
	p, _ := mirrorPath(mustParse("http://h:1/"), 0)
	return p[1]
}

// --mirror: a second run asks each file with If-Modified-Since from the
// file's time (the server's, kept on the file), moves no body for what
// did not change, and still follows the links of the pages kept.
func TestMirrorTimestamping(t *testing.T) {
	srv, paths := mirrorSite(t)
	dir := t.TempDir()
	for run := 0; run < 2; run++ {
		if _, errs, code := fetchCmd(t, "", "-r", "--mirror", "--output-dir", dir, srv.URL+"/a/b/"); code != 0 {
			t.Fatalf("run %d: exit %d, %s", run, code, errs)
		}
	}
	host := strings.Replace(strings.TrimPrefix(srv.URL, "http://"), ":", string(hostPortSep()), 1)
	fi, err := os.Stat(filepath.Join(dir, host, "a/b/p.html"))
	if err != nil || !fi.ModTime().Equal(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("p.html: %v, %v; want the server's time", fi, err)
	}
	n := map[string]int{}
	for _, p := range paths() {
		n[p]++
	}
	for _, p := range []string{"/a/b/", "/a/b/p.html", "/a/b/d.txt", "/a/b/q.gif"} {
		if n[p] != 1 || n[p+" conditional"] != 1 {
			t.Errorf("%s asked %d times, %d conditionally; want once each", p, n[p], n[p+" conditional"])
		}
	}
}

func mustParse(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// A mirror option without -r is a usage error, not silently ignored.
func TestMirrorOptionWithoutR(t *testing.T) {
	if _, errs, code := fetchCmd(t, "", "--span-hosts", "http://127.0.0.1:1/"); code != 2 || !strings.Contains(errs, "--span-hosts") {
		t.Errorf("exit %d, %q; want 2", code, errs)
	}
}
