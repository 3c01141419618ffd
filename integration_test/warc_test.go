//go:build integration

package integration_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// warcRecord is one record as warcio_verify.mjs reports it.
type warcRecord struct {
	Type            string `json:"type"`
	URI             string `json:"uri"`
	ID              string `json:"id"`
	Date            string `json:"date"`
	ContentType     string `json:"contentType"`
	Length          int64  `json:"length"`
	ConcurrentTo    string `json:"concurrentTo"`
	WarcinfoID      string `json:"warcinfoID"`
	IP              string `json:"ip"`
	Truncated       string `json:"truncated"`
	BlockDigest     string `json:"blockDigest"`
	PayloadDigest   string `json:"payloadDigest"`
	Status          int    `json:"status"`
	Method          string `json:"method"`
	ContentEncoding string `json:"contentEncoding"`
	ContentSHA256   string `json:"contentSHA256"`
}

var (
	warcioOnce sync.Once
	warcioDir  string
	warcioErr  error
)

// warcio installs webrecorder's warcio.js 2.4 from npm (and Node.js from
// Debian when it is missing), once per run, and returns the folder holding
// its node_modules.
func warcio(t *testing.T) string {
	t.Helper()
	warcioOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if _, err := exec.LookPath("npm"); err != nil {
			t.Log("installing nodejs and npm from Debian")
			apt := exec.CommandContext(ctx, "sh", "-c", "apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends nodejs npm")
			if out, err := apt.CombinedOutput(); err != nil {
				warcioErr = err
				t.Logf("%s", out)
				return
			}
		}
		base := os.Getenv("IT_DIR")
		if base == "" {
			base = os.TempDir()
		}
		warcioDir = filepath.Join(base, "warcio")
		if _, err := os.Stat(filepath.Join(warcioDir, "node_modules", "warcio", "package.json")); err == nil {
			return
		}
		if err := os.MkdirAll(warcioDir, 0o755); err != nil {
			warcioErr = err
			return
		}
		os.WriteFile(filepath.Join(warcioDir, "package.json"), []byte(`{"name":"fetch-it-warcio","private":true,"type":"module"}`), 0o644)
		npm := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "warcio@2.4")
		npm.Dir = warcioDir
		if out, err := npm.CombinedOutput(); err != nil {
			warcioErr = err
			t.Logf("npm install warcio@2.4: %s", out)
		}
	})
	if warcioErr != nil {
		t.Fatalf("installing warcio.js: %v", warcioErr)
	}
	return warcioDir
}

// readWARC reads files with warcio.js, which checks every record's digests,
// and returns the records of each file in order.
func readWARC(t *testing.T, files ...string) []warcRecord {
	t.Helper()
	dir := warcio(t)
	script, err := os.ReadFile("warcio_verify.mjs")
	if err != nil {
		t.Fatal(err)
	}
	// The script resolves "warcio" from its own folder.
	if err := os.WriteFile(filepath.Join(dir, "warcio_verify.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(dir, "warcio_verify.mjs")}, files...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var recs []warcRecord
	var summary string
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "{") {
			summary = line
			continue
		}
		var r warcRecord
		if jerr := json.Unmarshal([]byte(line), &r); jerr != nil {
			t.Fatalf("warcio_verify output %q: %v", line, jerr)
		}
		recs = append(recs, r)
	}
	t.Logf("%s", summary)
	if err != nil {
		t.Fatalf("warcio.js rejected %v: %v\n%s%s", files, err, errb.Bytes(), out.Bytes())
	}
	return recs
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// checkWARCShape checks what every file we write must hold: a warcinfo
// record first, named by every later record, and digests warcio.js
// verified.
func checkWARCShape(t *testing.T, recs []warcRecord) {
	t.Helper()
	if len(recs) == 0 || recs[0].Type != "warcinfo" {
		t.Fatalf("the first record is not warcinfo: %+v", recs)
	}
	for i, r := range recs {
		if r.BlockDigest != "ok" {
			t.Errorf("record %d (%s %s): block digest %s", i, r.Type, r.URI, r.BlockDigest)
		}
		if i > 0 && r.WarcinfoID != recs[0].ID {
			t.Errorf("record %d names warcinfo %q, want %q", i, r.WarcinfoID, recs[0].ID)
		}
		if r.Type == "resource" || r.Type == "response" {
			if r.PayloadDigest != "ok" {
				t.Errorf("record %d (%s %s): payload digest %s", i, r.Type, r.URI, r.PayloadDigest)
			}
		}
		if !strings.HasSuffix(r.Date, "Z") {
			t.Errorf("record %d: WARC-Date %q is not UTC", i, r.Date)
		}
	}
}

// TestWARCGopher records a gopher menu, a text item and a binary item as
// resource records, in a gzip-per-record file.
func TestWARCGopher(t *testing.T) {
	base, _ := gopherBase(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "gopher.warc.gz")
	urls := []string{base + "/1/", base + "/0/text.txt", base + "/9/bin.dat"}
	r := runFetch(t, dir, nil, append([]string{"-s", "-o", filepath.Join(dir, "menu"), "--warc-file", file}, urls[0])...)
	wantCode(t, r, 0, "fetch --warc-file of a menu")
	r = runFetch(t, dir, nil, append([]string{"-s", "--output-dir", dir, "-O", "--warc-file", file + "2"}, urls[1:]...)...)
	wantCode(t, r, 0, "fetch --warc-file of two items")
	recs := readWARC(t, file)
	recs2 := readWARC(t, file+"2")
	checkWARCShape(t, recs)
	checkWARCShape(t, recs2)
	if len(recs) != 2 || recs[1].Type != "resource" || recs[1].URI != urls[0] || recs[1].ContentType != "application/gopher-menu" {
		t.Fatalf("menu records %+v", recs)
	}
	if len(recs2) != 3 {
		t.Fatalf("%d records, want warcinfo and two resources: %+v", len(recs2), recs2)
	}
	byURI := map[string]warcRecord{}
	for _, r := range recs2[1:] {
		byURI[r.URI] = r
	}
	bin := gopherFile(t, "bin.dat")
	if r := byURI[urls[2]]; r.Type != "resource" || r.ContentSHA256 != sha256Hex(bin) || r.Length != int64(len(bin)) || r.IP != "127.0.0.1" {
		t.Errorf("binary item record %+v, want the %d bytes served from 127.0.0.1", r, len(bin))
	}
	got, err := os.ReadFile(filepath.Join(dir, "text.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if r := byURI[urls[1]]; r.ContentSHA256 != sha256Hex(got) {
		t.Errorf("text item record %+v, want the bytes fetch wrote (sha256 %s)", r, sha256Hex(got))
	}
}

// TestWARCHTTP records HTTP fetches as request and response records linked
// by WARC-Concurrent-To. The payload is the gzip nginx sent, which warcio.js
// decodes to the file; fetch's own output is decoded, unless --raw.
func TestWARCHTTP(t *testing.T) {
	addr := env(t, "FETCH_IT_HTTP_ADDR")
	root := env(t, "FETCH_IT_HTTP_ROOT")
	text, err := os.ReadFile(filepath.Join(root, "text.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []bool{false, true} {
		dir := t.TempDir()
		file := filepath.Join(dir, "http.warc")
		out := filepath.Join(dir, "out")
		args := []string{"-s", "-o", out, "--warc-file", file}
		if raw {
			args = append(args, "--raw")
		}
		u := "http://" + addr + "/text.txt"
		r := runFetch(t, dir, nil, append(args, u)...)
		wantCode(t, r, 0, "fetch --warc-file "+u)
		recs := readWARC(t, file)
		checkWARCShape(t, recs)
		if len(recs) != 3 {
			t.Fatalf("raw=%v: %d records, want warcinfo, request, response: %+v", raw, len(recs), recs)
		}
		req, resp := recs[1], recs[2]
		if req.Type != "request" || req.Method != "GET" || resp.Type != "response" || resp.Status != 200 {
			t.Fatalf("raw=%v: records %+v %+v", raw, req, resp)
		}
		if req.ConcurrentTo != resp.ID || resp.ConcurrentTo != req.ID {
			t.Errorf("raw=%v: request and response not linked by WARC-Concurrent-To: %+v %+v", raw, req, resp)
		}
		if req.URI != u || resp.URI != u || resp.IP != "127.0.0.1" {
			t.Errorf("raw=%v: target %q/%q, IP %q", raw, req.URI, resp.URI, resp.IP)
		}
		if resp.ContentEncoding != "gzip" || resp.ContentSHA256 != sha256Hex(text) {
			t.Errorf("raw=%v: payload with Content-Encoding %q decoded by warcio.js to sha256 %s, want gzip decoding to the file's %s", raw, resp.ContentEncoding, resp.ContentSHA256, sha256Hex(text))
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if gz := len(got) > 2 && got[0] == 0x1f && got[1] == 0x8b; gz != raw || !raw && !bytes.Equal(got, text) {
			t.Errorf("raw=%v: fetch wrote %d bytes (gzip: %v), want the file decoded unless --raw", raw, len(got), gz)
		}
	}
}

// TestWARCHTTPS records an https fetch from nginx over HTTP/1.1: the
// records hold the decrypted heads as they went over the connection
// (nginx's "ETag" as it wrote it, its "Connection: keep-alive"), say
// WARC-Protocol: http/1.1 and the TLS version, and warcio.js reads them, through a proxy's
// CONNECT tunnel too; with --http2 the heads are rendered and WARC-Protocol says h2.
func TestWARCHTTPS(t *testing.T) {
	addr := env(t, "FETCH_IT_HTTPS_ADDR")
	ca := env(t, "FETCH_IT_HTTP_CACERT")
	u := "https://" + addr + "/hello.txt"
	px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: "http", User: "u", Password: "pw"})
	for _, tt := range []struct {
		name  string
		args  []string
		proto string
		wire  bool
	}{
		{"http1.1", nil, "http/1.1", true},
		{"http1.1 through a proxy", []string{"-x", px.URL.String()}, "http/1.1", true},
		{"http2", []string{"--http2"}, "h2", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "https.warc")
			args := append([]string{"-s", "--cacert", ca, "-o", filepath.Join(dir, "out"), "--warc-file", file}, tt.args...)
			r := runFetch(t, dir, nil, append(args, u)...)
			wantCode(t, r, 0, "fetch --warc-file "+u+" "+strings.Join(tt.args, " "))
			recs := readWARC(t, file)
			checkWARCShape(t, recs)
			if len(recs) != 3 || recs[1].Type != "request" || recs[2].Type != "response" || recs[2].Status != 200 {
				t.Fatalf("records %+v, want warcinfo, request, response 200", recs)
			}
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			w := string(raw)
			if n := strings.Count(w, "WARC-Protocol: "+tt.proto+"\r\n"); n != 2 {
				t.Errorf("%d records say WARC-Protocol: %s, want 2", n, tt.proto)
			}
			if n := strings.Count(w, "WARC-Protocol: tls/1."); n != 2 {
				t.Errorf("%d records name the TLS version in a WARC-Protocol field, want 2", n)
			}
			asSent := strings.Contains(w, "\r\nETag: \"") && strings.Contains(w, "\r\nConnection: keep-alive\r\n")
			if asSent != tt.wire {
				t.Errorf("the response record holds nginx's head as sent: %v, want %v:\n%s", asSent, tt.wire, w)
			}
		})
	}
	if asked := px.Asked(); len(asked) != 1 || asked[0] != "CONNECT "+addr {
		t.Errorf("the proxy was asked for %q, want one CONNECT %s", asked, addr)
	}
}

// TestWARCFTP records an FTP file and a directory listing as resource
// records.
func TestWARCFTP(t *testing.T) {
	base := "ftp://" + env(t, "FETCH_IT_FTP_ADDR")
	dir := t.TempDir()
	file := filepath.Join(dir, "ftp.warc.gz")
	r := runFetch(t, dir, nil, "-s", "--parallel", "2", "--output-dir", dir, "-O", "--warc-file", file, base+"/pub/hello.txt", base+"/pub/nested/deep/er/file.txt")
	wantCode(t, r, 0, "fetch --warc-file over FTP")
	r = runFetch(t, dir, nil, "-s", "--warc-file", file+"2", base+"/pub/")
	wantCode(t, r, 0, "fetch --warc-file of an FTP directory")
	recs := append(readWARC(t, file), readWARC(t, file+"2")...)
	checkWARCShape(t, recs[:3])
	checkWARCShape(t, recs[3:])
	want := map[string]string{
		base + "/pub/hello.txt":               sha256Hex([]byte("hello from vsftpd\n")),
		base + "/pub/nested/deep/er/file.txt": sha256Hex([]byte("deep\n")),
		base + "/pub/":                        sha256Hex(r.Stdout),
	}
	for _, rec := range recs {
		if rec.Type != "resource" {
			continue
		}
		if w, ok := want[rec.URI]; !ok || rec.ContentSHA256 != w {
			t.Errorf("record %+v: want content sha256 %s", rec, w)
		}
		delete(want, rec.URI)
	}
	if len(want) > 0 {
		t.Errorf("no records for %v", want)
	}
}

// TestWARCFile records file: fetches, one of them a directory, with no
// server; and a failed fetch records nothing.
func TestWARCFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(filepath.Join(src, "sub"), 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("alpha\n"), 0o644)
	file := filepath.Join(dir, "file.warc")
	r := runFetch(t, dir, nil, "-s", "--warc-file", file, "file://"+src+"/a.txt", "file://"+src+"/", "file://"+src+"/missing")
	wantCode(t, r, 7, "file fetches, the last missing")
	recs := readWARC(t, file)
	checkWARCShape(t, recs)
	if len(recs) != 3 {
		t.Fatalf("%d records, want warcinfo and two resources: %+v", len(recs), recs)
	}
	if recs[1].URI != "file://"+src+"/a.txt" || recs[1].ContentSHA256 != sha256Hex([]byte("alpha\n")) {
		t.Errorf("file record %+v", recs[1])
	}
	if recs[2].URI != "file://"+src+"/" || recs[2].ContentType == "" {
		t.Errorf("directory record %+v", recs[2])
	}
}
