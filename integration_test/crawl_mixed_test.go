//go:build integration

package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// countLines counts the lines of a server's log that match re.
func countLines(t *testing.T, file string, re *regexp.Regexp) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return len(re.FindAllIndex(b, -1))
}

// fetch -r over a site that mixes http (nginx), gopher (gophernicus) and
// ftp (vsftpd), its pages linking across the three, makes one request per
// URL, counted at each server: nginx's access log (and one robots.txt),
// the connections tcpserver accepted for gophernicus (one a request), and
// vsftpd's log of every command (one RETR a file, one listing a folder).
func TestCrawlMixedSchemesOneRequestEach(t *testing.T) {
	httpAddr := env(t, "FETCH_IT_HTTP_ADDR")
	gopher, _ := gopherBase(t)
	ftp := ftpBase(t)
	needLister(t, gopher+"/")
	needLister(t, ftp+"/pub/")
	root := env(t, "FETCH_IT_HTTP_ROOT")
	site := filepath.Join(root, "mix")
	os.MkdirAll(site, 0o755)
	pages := map[string]string{
		"index.html": fmt.Sprintf(`<a href="a.html">a</a> <a href="./a.html">again</a> <a href="sub/../a.html">and again</a>
<a href="b.txt">b</a> <a href="%s/">the hole</a> <a href="%s/pub/">the tree</a> <img src="b.txt">`, gopher, ftp),
		"a.html": fmt.Sprintf(`<a href="./">home</a> <a href="/mix/">home again</a> <a href="%s/1/sub/">a menu</a>
<a href="%s/pub/hello.txt">a file</a> <a href="../hello.txt">above the folder</a>`, gopher, ftp),
		"b.txt": "b\n",
	}
	for name, body := range pages {
		if err := os.WriteFile(filepath.Join(site, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	itDir := os.Getenv("IT_DIR")
	accessLog := filepath.Join(filepath.Dir(root), "logs", "access.log")
	gopherLog := filepath.Join(itDir, "gopher.log")
	ftpLog := filepath.Join(itDir, "ftp", "vsftpd.log")
	gopherConns := regexp.MustCompile(`(?m)tcpserver: ok `)
	g0 := countLines(t, gopherLog, gopherConns)
	ftpBefore, _ := os.ReadFile(ftpLog)
	httpBefore, _ := os.ReadFile(accessLog)

	out := t.TempDir()
	warcFile := filepath.Join(t.TempDir(), "mix.warc")
	r := runFetch(t, "", nil, "-r", "-l", "4", "--parallel", "4", "--output-dir", out, "--warc-file", warcFile,
		"http://"+httpAddr+"/mix/", gopher+"/", ftp+"/pub/")
	wantCode(t, r, 0, "fetch -r over http, gopher and ftp")
	files := mirrored(t, out)

	// nginx: each path of /mix/ once, robots.txt once, nothing above /mix/.
	httpAfter, _ := os.ReadFile(accessLog)
	reqs := map[string]int{}
	for _, m := range regexp.MustCompile(`"GET (\S+) HTTP`).FindAllStringSubmatch(string(httpAfter[len(httpBefore):]), -1) {
		reqs[m[1]]++
	}
	want := map[string]int{"/robots.txt": 1, "/mix/": 1, "/mix/a.html": 1, "/mix/b.txt": 1}
	if fmt.Sprint(reqs) != fmt.Sprint(want) {
		t.Errorf("nginx saw %v, want %v", reqs, want)
	}
	// gophernicus: one connection (one request) per gopher URL the crawl
	// fetched, as its WARC records them, none twice.
	archive, err := os.ReadFile(warcFile)
	if err != nil {
		t.Fatal(err)
	}
	gopherURIs := map[string]int{}
	for _, m := range regexp.MustCompile(`WARC-Target-URI: (gopher://\S+)`).FindAllStringSubmatch(string(archive), -1) {
		gopherURIs[m[1]]++
	}
	for u, n := range gopherURIs {
		if n != 1 {
			t.Errorf("%s recorded %d times", u, n)
		}
	}
	if g := countLines(t, gopherLog, gopherConns) - g0; g != len(gopherURIs) || g == 0 {
		t.Errorf("gophernicus served %d requests for %d gopher URLs fetched", g, len(gopherURIs))
	}
	// vsftpd: one RETR per file, one listing per folder.
	ftpAfter, _ := os.ReadFile(ftpLog)
	cmds := map[string]int{}
	for _, m := range regexp.MustCompile(`FTP command: Client "[^"]*", "((?:RETR|LIST|MLSD|NLST|CWD)[^"]*)"`).FindAllStringSubmatch(string(ftpAfter[len(ftpBefore):]), -1) {
		cmds[m[1]]++
	}
	retr, lists := 0, 0
	for c, n := range cmds {
		switch {
		case strings.HasPrefix(c, "RETR"):
			retr++
			if n != 1 {
				t.Errorf("vsftpd: %q %d times", c, n)
			}
		case strings.HasPrefix(c, "LIST"), strings.HasPrefix(c, "MLSD"), strings.HasPrefix(c, "NLST"):
			lists += n
		}
	}
	ftpHost := strings.TrimPrefix(ftp, "ftp://") + "/"
	ftpFiles, ftpDirs := 0, 0
	for name := range files {
		if strings.HasPrefix(name, ftpHost) {
			if strings.HasSuffix(name, "/.listing") {
				ftpDirs++
			} else {
				ftpFiles++
			}
		}
	}
	if retr != ftpFiles || lists != ftpDirs || retr == 0 {
		t.Errorf("vsftpd: %d files retrieved and %d listings (%v) for %d files and %d folders mirrored", retr, lists, cmds, ftpFiles, ftpDirs)
	}
	if _, ok := files[httpAddr+"/mix/a.html"]; !ok {
		t.Errorf("mirrored %v", keys(files))
	}
}

// fetch -r --warc-file over nginx: a broken link's 404, a gone page's
// 410 and a redirect's 301 are recorded, a payload served twice becomes a revisit record, the
// files rotate at --warc-max-size, and warcio.js reads every one of them
// with every digest right; --warc-cdx indexes them.
func TestCrawlWARCArchive(t *testing.T) {
	httpAddr := env(t, "FETCH_IT_HTTP_ADDR")
	root := env(t, "FETCH_IT_HTTP_ROOT")
	site := filepath.Join(root, "arch")
	os.MkdirAll(site, 0o755)
	same := strings.Repeat("the same payload\n", 200)
	for name, body := range map[string]string{
		"index.html": `<a href="c1.txt">1</a> <a href="c2.txt">2</a> <a href="missing">x</a> <a href="/gone">gone</a> <a href="/redirect">moved</a>`,
		"c1.txt":     same,
		"c2.txt":     same,
	} {
		if err := os.WriteFile(filepath.Join(site, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	r := runFetch(t, "", nil, "-r", "--parent", "--parallel", "1", "--output-dir", filepath.Join(dir, "m"),
		"--warc-file", filepath.Join(dir, "arch.warc.gz"), "--warc-max-size", "4k", "--warc-cdx", "http://"+httpAddr+"/arch/")
	wantCode(t, r, 7, "fetch -r --warc-file with a broken link")
	names, _ := filepath.Glob(filepath.Join(dir, "arch*.warc.gz"))
	if len(names) < 2 {
		t.Fatalf("files %q: no rotation at 4k", names)
	}
	recs := readWARC(t, names...)
	statuses := map[int]int{}
	revisited := false
	for _, rec := range recs {
		switch rec.Type {
		case "response":
			statuses[rec.Status]++
		case "revisit":
			// c2.txt's payload is c1.txt's (and nginx's 404 page for
			// robots.txt may be that of /arch/missing).
			revisited = revisited || strings.HasSuffix(rec.URI, "/arch/c2.txt")
		}
	}
	if statuses[404] < 1 || statuses[410] != 1 || statuses[301] != 1 || !revisited {
		t.Errorf("responses by status %v, c2.txt a revisit: %v; want a 404, a 410, the 301 of /redirect and c2.txt a revisit", statuses, revisited)
	}
	idx, err := os.ReadFile(filepath.Join(dir, "arch.cdxj"))
	if err != nil || !strings.Contains(string(idx), `"status":"410"`) || !strings.Contains(string(idx), "warc/revisit") {
		t.Errorf("index %s, %v", idx, err)
	}
}
