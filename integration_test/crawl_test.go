//go:build integration

package integration_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// needLister skips the test when the scheme's handler cannot list yet
// (fetch --list exits 4, Unsupported): -r has no links to follow then.
func needLister(t *testing.T, u string) {
	t.Helper()
	if r := runFetch(t, "", nil, "--list", u); r.Code == 4 {
		t.Skipf("the handler of %s lists no entries: %s", u, r.Stderr)
	}
}

// mirrored returns the files under dir, relative, with their bytes.
func mirrored(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, _ := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	return files
}

// fetch -r mirrors the gophernicus hole: the menus as gophermap files,
// every item as host:port/selector, and a summary on stderr.
func TestCrawlGopherHole(t *testing.T) {
	base, port := gopherBase(t)
	needLister(t, base+"/")
	out := t.TempDir()
	r := runFetch(t, "", nil, "-r", "-l", "3", "--output-dir", out, base+"/")
	wantCode(t, r, 0, "fetch -r "+base)
	files := mirrored(t, out)
	host := "127.0.0.1:" + port + "/"
	crlf := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }
	for name, want := range map[string][]byte{
		"text.txt":      crlf(gopherFile(t, "text.txt")),
		"bin.dat":       gopherFile(t, "bin.dat"),
		"sub/inner.txt": crlf(gopherFile(t, "sub/inner.txt")),
	} {
		if got, ok := files[host+name]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes (present %v), want %d", host+name, len(got), ok, len(want))
		}
	}
	if _, ok := files[host+"gophermap"]; !ok {
		t.Errorf("no gophermap for the top menu; mirrored %d files: %v", len(files), keys(files))
	}
	if _, ok := files[host+"sub/gophermap"]; !ok {
		t.Errorf("no gophermap for /sub/; mirrored %v", keys(files))
	}
	if !strings.Contains(string(r.Stderr), "fetched") {
		t.Errorf("no summary on stderr: %s", r.Stderr)
	}
	// -l 0: the seed only.
	out0 := t.TempDir()
	r = runFetch(t, "", nil, "-r", "-l", "0", "--output-dir", out0, base+"/")
	wantCode(t, r, 0, "fetch -r -l 0")
	if files := mirrored(t, out0); len(files) != 1 {
		t.Errorf("-l 0 mirrored %v, want the top menu only", keys(files))
	}
}

// fetch -r mirrors vsftpd's /pub tree, every file identical, nested
// folders and names with spaces included.
func TestCrawlFTPTree(t *testing.T) {
	base := ftpBase(t)
	needLister(t, base+"/pub/")
	out := t.TempDir()
	r := runFetch(t, "", nil, "-r", "--output-dir", out, base+"/pub/")
	wantCode(t, r, 0, "fetch -r "+base+"/pub/")
	files := mirrored(t, out)
	host := strings.TrimPrefix(base, "ftp://") + "/"
	src := filepath.Join(os.Getenv("IT_DIR"), "ftp", "anon")
	n := 0
	filepath.WalkDir(filepath.Join(src, "pub"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		rel, _ := filepath.Rel(src, p)
		want, _ := os.ReadFile(p)
		if got, ok := files[host+filepath.ToSlash(rel)]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes (present %v), want %d", rel, len(got), ok, len(want))
		}
		return nil
	})
	if n < 3 {
		t.Fatalf("the fixture holds %d files under pub", n)
	}
	for name := range files {
		if !strings.HasPrefix(name, host+"pub/") {
			t.Errorf("mirrored %s, outside /pub/", name)
		}
	}
}

// fetch -r mirrors a small web site from nginx's autoindex pages.
func TestCrawlHTTPSite(t *testing.T) {
	addr := env(t, "FETCH_IT_HTTP_ADDR")
	base := "http://" + addr
	needLister(t, base+"/dir/")
	out := t.TempDir()
	r := runFetch(t, "", nil, "-r", "--output-dir", out, base+"/dir/")
	wantCode(t, r, 0, "fetch -r "+base+"/dir/")
	files := mirrored(t, out)
	root := env(t, "FETCH_IT_HTTP_ROOT")
	for _, name := range []string{"dir/a.txt", "dir/b.txt"} {
		want, _ := os.ReadFile(filepath.Join(root, name))
		if got, ok := files[addr+"/"+name]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: %q (present %v), want %q", name, got, ok, want)
		}
	}
	if _, ok := files[addr+"/dir/index.html"]; !ok {
		t.Errorf("no index.html for /dir/; mirrored %v", keys(files))
	}
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// fetch --list prints one URL a line; --list --json one object per entry
// with the same six keys for every scheme.
func TestListCLI(t *testing.T) {
	gopher, _ := gopherBase(t)
	ftp := ftpBase(t)
	for _, tt := range []struct{ url, want string }{
		{gopher + "/", gopher + "/0/text.txt"},
		{gopher + "/1/sub/", gopher + "/0/sub/inner.txt"},
		{ftp + "/pub/", ftp + "/pub/nested/"},
		{ftp + "/pub/", ftp + "/pub/hello.txt"},
	} {
		needLister(t, tt.url)
		r := runFetch(t, "", nil, "--list", tt.url)
		wantCode(t, r, 0, "--list "+tt.url)
		if !strings.Contains("\n"+string(r.Stdout), "\n"+tt.want+"\n") {
			t.Errorf("--list %s:\n%s\nwant a line %s", tt.url, r.Stdout, tt.want)
		}
		r = runFetch(t, "", nil, "--list", "--json", tt.url)
		wantCode(t, r, 0, "--list --json "+tt.url)
		lines := strings.Split(strings.TrimSpace(string(r.Stdout)), "\n")
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("--list --json %s: %q: %v", tt.url, l, err)
			}
			for _, k := range []string{"name", "url", "kind", "size", "modtime", "type"} {
				if _, ok := m[k]; !ok || len(m) != 6 {
					t.Errorf("--list --json %s: %s lacks %q or has other keys", tt.url, l, k)
				}
			}
		}
	}
}

// fetch -r --warc-file records every resource of the mirror, as fetched,
// in a WARC file that warcio.js reads with every digest right: a gopher
// hole and an FTP tree in one run.
func TestCrawlWARC(t *testing.T) {
	gopher, port := gopherBase(t)
	ftp := ftpBase(t)
	needLister(t, gopher+"/")
	needLister(t, ftp+"/pub/")
	dir := t.TempDir()
	warcFile := filepath.Join(dir, "mirror.warc.gz")
	r := runFetch(t, "", nil, "-r", "--warc-file", warcFile, "--output-dir", filepath.Join(dir, "m"), gopher+"/", ftp+"/pub/")
	wantCode(t, r, 0, "fetch -r --warc-file")
	recs := readWARC(t, warcFile)
	byURI := map[string]warcRecord{}
	for _, rec := range recs {
		if rec.Type == "resource" {
			byURI[rec.URI] = rec
		}
	}
	files := mirrored(t, filepath.Join(dir, "m"))
	for _, tt := range []struct{ uri, file string }{
		{gopher + "/9/bin.dat", "127.0.0.1:" + port + "/bin.dat"},
		{gopher + "/0/text.txt", "127.0.0.1:" + port + "/text.txt"},
		{ftp + "/pub/hello.txt", strings.TrimPrefix(ftp, "ftp://") + "/pub/hello.txt"},
	} {
		rec, ok := byURI[tt.uri]
		if !ok {
			t.Errorf("no resource record for %s; records for %v", tt.uri, keysOf(byURI))
			continue
		}
		if want := sha256Hex(files[tt.file]); rec.ContentSHA256 != want || len(files[tt.file]) == 0 {
			t.Errorf("%s: the record holds sha256 %s, the mirrored file %s", tt.uri, rec.ContentSHA256, want)
		}
	}
	// The FTP directory, listed by one LIST, is recorded too (issue 25):
	// the text the crawl rendered, one entry a line.
	if rec, ok := byURI[ftp+"/pub/"]; !ok || !strings.HasPrefix(rec.ContentType, "text/plain") {
		t.Errorf("the FTP directory %s/pub/: record %+v (found %v), want a text/plain resource record", ftp, rec, ok)
	}
	if len(recs) == 0 || recs[0].Type != "warcinfo" {
		t.Errorf("the file does not start with warcinfo")
	}
}

func keysOf(m map[string]warcRecord) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// On a terminal, -r draws its transfers and a total, which ends as every
// URL done, above the summary.
func TestCrawlProgress(t *testing.T) {
	base, _ := gopherBase(t)
	needLister(t, base+"/")
	tm := newTmux(t)
	tm.line(fetchBin(t) + " -r --output-dir m " + base + "/; echo EXIT=$?")
	tm.waitFor("EXIT=0", 1)
	s := tm.screen()
	m := regexp.MustCompile(`total (\d+)/(\d+)`).FindStringSubmatch(s)
	if m == nil || m[1] != m[2] || m[1] == "0" || !strings.Contains(s, "fetched") {
		t.Errorf("the screen lacks a complete total and the summary:\n%s", s)
	}
}
