//go:build integration

package integration_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTTP drives the binary against nginx (servers/http.sh).
func TestHTTP(t *testing.T) {
	addr := env(t, "FETCH_IT_HTTP_ADDR")
	root := env(t, "FETCH_IT_HTTP_ROOT")
	base := "http://" + addr

	t.Run("Get", func(t *testing.T) {
		r := runFetch(t, "", nil, base+"/hello.txt")
		wantCode(t, r, 0, "GET /hello.txt")
		if string(r.Stdout) != "hello from nginx\n" {
			t.Fatalf("stdout = %q", r.Stdout)
		}
		r = runFetch(t, "", nil, base+"/with%20space.txt")
		wantCode(t, r, 0, "GET /with%20space.txt")
		if string(r.Stdout) != "spaced\n" {
			t.Fatalf("stdout = %q", r.Stdout)
		}
	})

	t.Run("Statuses", func(t *testing.T) {
		for path, code := range map[string]int{
			"/missing": 7, "/gone": 7, "/private": 6, "/forbidden": 6,
			"/loop": 8, "/to-file": 11,
		} {
			r := runFetch(t, "", nil, base+path)
			wantCode(t, r, code, "GET "+path)
			if len(r.Stdout) != 0 {
				t.Errorf("GET %s wrote %d bytes to stdout", path, len(r.Stdout))
			}
			if !strings.Contains(string(r.Stderr), base+path) {
				t.Errorf("GET %s: stderr does not name the URL: %s", path, r.Stderr)
			}
		}
		r := runFetch(t, "", nil, base+"/missing")
		if !strings.Contains(string(r.Stderr), "404 Not Found") {
			t.Errorf("404: stderr lacks the status line: %s", r.Stderr)
		}
	})

	t.Run("Redirects", func(t *testing.T) {
		r := runFetch(t, "", nil, "-v", base+"/chain")
		wantCode(t, r, 0, "GET /chain")
		if string(r.Stdout) != "hello from nginx\n" {
			t.Fatalf("stdout = %q", r.Stdout)
		}
		for _, want := range []string{"> GET /chain HTTP/1.1", "< HTTP/1.1 302 Moved Temporarily", "> GET /chain2 HTTP/1.1",
			"> GET /redirect HTTP/1.1", "< HTTP/1.1 301 Moved Permanently", "> GET /hello.txt HTTP/1.1", "< HTTP/1.1 200 OK"} {
			if !strings.Contains(string(r.Stderr), want+"\n") {
				t.Errorf("-v trace lacks %q:\n%s", want, r.Stderr)
			}
		}
		if n := strings.Count(string(r.Stderr), "redirect"); n < 3 {
			t.Errorf("-v shows %d redirect notes, want 3:\n%s", n, r.Stderr)
		}
	})

	t.Run("Big", func(t *testing.T) {
		dir := t.TempDir()
		r := runFetch(t, dir, nil, "-s", "-o", "big.bin", base+"/big.bin")
		wantCode(t, r, 0, "GET /big.bin -o")
		if got := httpFileSHA(t, filepath.Join(dir, "big.bin")); got != env(t, "FETCH_IT_HTTP_BIG_SHA256") {
			t.Fatalf("big.bin checksum %s, want %s", got, env(t, "FETCH_IT_HTTP_BIG_SHA256"))
		}

		// Resume: a partial file completes with Range.
		want, err := os.ReadFile(filepath.Join(root, "big.bin"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "part.bin"), want[:12345678], 0o644); err != nil {
			t.Fatal(err)
		}
		r = runFetch(t, dir, nil, "-v", "-s", "-C", "-", "-o", "part.bin", base+"/big.bin")
		wantCode(t, r, 0, "GET /big.bin -C - -o")
		if !strings.Contains(string(r.Stderr), "> Range: bytes=12345678-\n") || !strings.Contains(string(r.Stderr), "< HTTP/1.1 206 Partial Content\n") {
			t.Errorf("-C - trace lacks the Range request or the 206:\n%s", r.Stderr)
		}
		if got := httpFileSHA(t, filepath.Join(dir, "part.bin")); got != env(t, "FETCH_IT_HTTP_BIG_SHA256") {
			t.Fatalf("resumed big.bin checksum %s, want %s", got, env(t, "FETCH_IT_HTTP_BIG_SHA256"))
		}
		// Resuming a whole file changes nothing.
		r = runFetch(t, dir, nil, "-s", "-C", "-", "-o", "part.bin", base+"/big.bin")
		wantCode(t, r, 0, "GET /big.bin -C - -o (already whole)")
		if got := httpFileSHA(t, filepath.Join(dir, "part.bin")); got != env(t, "FETCH_IT_HTTP_BIG_SHA256") {
			t.Fatalf("after a second resume, checksum %s", got)
		}
	})

	t.Run("Head", func(t *testing.T) {
		r := runFetch(t, "", nil, "-I", base+"/big.bin")
		wantCode(t, r, 0, "-I /big.bin")
		for _, want := range []string{"size: 67108864\n", "kind: file\n", "media-type: application/octet-stream\n", "http-status: 200 OK\n"} {
			if !strings.Contains(string(r.Stdout), want) {
				t.Errorf("-I output lacks %q:\n%s", want, r.Stdout)
			}
		}
	})

	t.Run("Gzip", func(t *testing.T) {
		want, err := os.ReadFile(filepath.Join(root, "text.txt"))
		if err != nil {
			t.Fatal(err)
		}
		r := runFetch(t, "", nil, "-v", base+"/text.txt")
		wantCode(t, r, 0, "GET /text.txt")
		if !bytes.Equal(r.Stdout, want) {
			t.Fatalf("decoded body: %d bytes, want %d", len(r.Stdout), len(want))
		}
		if !strings.Contains(string(r.Stderr), "< Content-Encoding: gzip\n") {
			t.Errorf("nginx did not compress; trace:\n%s", r.Stderr)
		}
		r = runFetch(t, "", nil, "--raw", base+"/text.txt")
		wantCode(t, r, 0, "GET /text.txt --raw")
		zr, err := gzip.NewReader(bytes.NewReader(r.Stdout))
		if err != nil {
			t.Fatalf("--raw body is not gzip: %v", err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("--raw body decodes to %d bytes (%v), want %d", len(got), err, len(want))
		}
	})

	t.Run("DryRun", func(t *testing.T) {
		r := runFetch(t, "", nil, "--dry-run", "http://joe:secret@"+addr+"/a%20b?q")
		wantCode(t, r, 0, "--dry-run")
		if !strings.HasPrefix(string(r.Stdout), "GET /a%20b?q HTTP/1.1\n") || strings.Contains(string(r.Stdout), "secret") {
			t.Fatalf("--dry-run printed:\n%s", r.Stdout)
		}
	})

	t.Run("Proxy", func(t *testing.T) {
		// nginx answers an absolute-form request line from its default
		// server, so it stands in for a forward proxy. Go never proxies
		// 127.0.0.1, hence a name that resolves nowhere.
		t.Setenv("HTTP_PROXY", "http://"+addr)
		t.Setenv("NO_PROXY", "")
		r := runFetch(t, "", nil, "-v", "http://fetch-proxy-test.invalid/hello.txt")
		wantCode(t, r, 0, "GET through HTTP_PROXY")
		if string(r.Stdout) != "hello from nginx\n" || !strings.Contains(string(r.Stderr), "> GET http://fetch-proxy-test.invalid/hello.txt HTTP/1.1\n") {
			t.Fatalf("through the proxy: %q\n%s", r.Stdout, r.Stderr)
		}
		t.Setenv("NO_PROXY", "fetch-proxy-test.invalid")
		r = runFetch(t, "", nil, "http://fetch-proxy-test.invalid/hello.txt")
		wantCode(t, r, 5, "NO_PROXY: a direct connection to a name that does not resolve")
	})

	t.Run("RemoteNameAndParallel", func(t *testing.T) {
		dir := t.TempDir()
		r := runFetch(t, dir, nil, "-O", base+"/with%20space.txt")
		wantCode(t, r, 0, "-O")
		if b, err := os.ReadFile(filepath.Join(dir, "with space.txt")); err != nil || string(b) != "spaced\n" {
			t.Fatalf("-O wrote %q, %v", b, err)
		}
		urls := []string{"--parallel", "4"}
		var want bytes.Buffer
		for range 3 {
			for _, p := range []string{"/hello.txt", "/dir/a.txt", "/redirect", "/dir/b.txt"} {
				urls = append(urls, base+p)
				b, err := os.ReadFile(filepath.Join(root, strings.ReplaceAll(p, "/redirect", "/hello.txt")))
				if err != nil {
					t.Fatal(err)
				}
				want.Write(b)
			}
		}
		r = runFetch(t, "", nil, urls...)
		wantCode(t, r, 0, "--parallel 4")
		if !bytes.Equal(r.Stdout, want.Bytes()) {
			t.Fatalf("--parallel stdout:\n%s\nwant:\n%s", r.Stdout, want.Bytes())
		}
		r = runFetch(t, "", nil, base+"/hello.txt", base+"/missing", base+"/private")
		wantCode(t, r, 7, "several URLs, the first failure 404")
		if string(r.Stdout) != "hello from nginx\n" || strings.Count(string(r.Stderr), "\n") != 2 {
			t.Fatalf("several URLs: stdout %q, stderr:\n%s", r.Stdout, r.Stderr)
		}
	})

	t.Run("Refused", func(t *testing.T) {
		r := runFetch(t, "", nil, base+"/a%0D%0AX:%20y")
		wantCode(t, r, 11, "CR LF in the path")
	})
}

// TestHTTPS drives the binary against nginx's TLS listener.
func TestHTTPS(t *testing.T) {
	addr := env(t, "FETCH_IT_HTTPS_ADDR")
	ca := env(t, "FETCH_IT_HTTP_CACERT")
	u := "https://" + addr + "/hello.txt"

	r := runFetch(t, "", nil, u)
	wantCode(t, r, 5, "self-signed certificate without --cacert")
	for _, args := range [][]string{{"--cacert", ca}, {"-k"}, {"--insecure"}} {
		r = runFetch(t, "", nil, append(args, "-v", u)...)
		wantCode(t, r, 0, "https with "+strings.Join(args, " "))
		if string(r.Stdout) != "hello from nginx\n" {
			t.Fatalf("stdout = %q", r.Stdout)
		}
		if !strings.Contains(string(r.Stderr), "> GET /hello.txt HTTP/1.1\n") {
			t.Errorf("HTTP/1.1, the default, was not used:\n%s", r.Stderr)
		}
	}
	// --http2: nginx offers it, and it is spoken.
	r = runFetch(t, "", nil, "--http2", "--cacert", ca, "-v", u)
	wantCode(t, r, 0, "https --http2")
	if string(r.Stdout) != "hello from nginx\n" || !strings.Contains(string(r.Stderr), "> GET /hello.txt HTTP/2\n") {
		t.Errorf("--http2: stdout %q, HTTP/2 not used:\n%s", r.Stdout, r.Stderr)
	}
	dir := t.TempDir()
	r = runFetch(t, dir, nil, "-s", "--cacert", ca, "-o", "big.bin", "https://"+addr+"/big.bin")
	wantCode(t, r, 0, "https /big.bin")
	if got := httpFileSHA(t, filepath.Join(dir, "big.bin")); got != env(t, "FETCH_IT_HTTP_BIG_SHA256") {
		t.Fatalf("big.bin over https: checksum %s", got)
	}
}

func httpFileSHA(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestLighttpd drives the binary against lighttpd (servers/lighttpd.sh),
// whose replies differ from nginx's where it matters: its 416 does not say
// the resource's size.
func TestLighttpd(t *testing.T) {
	addr := env(t, "FETCH_IT_LIGHTTPD_ADDR")
	root := env(t, "FETCH_IT_LIGHTTPD_ROOT")
	base := "http://" + addr
	want, err := os.ReadFile(filepath.Join(root, "r.bin"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("ResumeComplete", func(t *testing.T) {
		dir := t.TempDir()
		r := runFetch(t, dir, nil, "-s", "-o", "r.bin", base+"/r.bin")
		wantCode(t, r, 0, "GET /r.bin -o r.bin")
		// The file is whole: lighttpd answers 416 without Content-Range.
		r = runFetch(t, dir, nil, "-v", "-s", "-C", "-", "-o", "r.bin", base+"/r.bin")
		wantCode(t, r, 0, "GET /r.bin -C - -o r.bin (already whole)")
		if !strings.Contains(string(r.Stderr), "< HTTP/1.1 416") {
			t.Errorf("-C - on a whole file: the trace lacks the 416:\n%s", r.Stderr)
		}
		for i := 0; i < 2; i++ { // and again: every rerun succeeds
			got, err := os.ReadFile(filepath.Join(dir, "r.bin"))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("r.bin after -C -: %d bytes, %v; want the %d bytes intact", len(got), err, len(want))
			}
			r = runFetch(t, dir, nil, "-s", "-C", "-", "-o", "r.bin", base+"/r.bin")
			wantCode(t, r, 0, "GET /r.bin -C - -o r.bin (rerun)")
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("the folder holds %d files, want r.bin only", len(ents))
		}

		// A local file longer than the resource: an error naming both sizes,
		// and the file left as it was.
		long := append(append([]byte(nil), want...), "more"...)
		if err := os.WriteFile(filepath.Join(dir, "long.bin"), long, 0o644); err != nil {
			t.Fatal(err)
		}
		r = runFetch(t, dir, nil, "-C", "-", "-o", "long.bin", base+"/r.bin")
		if r.Code == 0 || !strings.Contains(string(r.Stderr), "102404") || !strings.Contains(string(r.Stderr), "102400") {
			t.Errorf("-C - past the end: exit %d, stderr %s; want a failure naming both sizes", r.Code, r.Stderr)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "long.bin")); !bytes.Equal(got, long) {
			ents, _ := os.ReadDir(dir)
			t.Errorf("-C - past the end changed the local file (%d bytes; the folder holds %v)", len(got), ents)
		}
	})

	t.Run("RedirectLimits", func(t *testing.T) {
		dir := t.TempDir()
		r := runFetch(t, dir, nil, "--max-redirs", "0", "-o", "x.txt", base+"/redirect")
		wantCode(t, r, 8, "--max-redirs 0 on a 301")
		for _, w := range []string{"redirect limit is 0", base + "/hello.txt"} {
			if !strings.Contains(string(r.Stderr), w) {
				t.Errorf("--max-redirs 0: stderr lacks %q: %s", w, r.Stderr)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil {
			t.Errorf("--max-redirs 0 wrote x.txt")
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("--max-redirs 0 left %d files behind", len(ents))
		}
		r = runFetch(t, dir, nil, "--max-redirs", "0", base+"/redirect")
		wantCode(t, r, 8, "--max-redirs 0 on a 301 to stdout")
		if len(r.Stdout) != 0 {
			t.Errorf("--max-redirs 0 wrote %q to stdout", r.Stdout)
		}
		r = runFetch(t, dir, nil, "--max-redirs", "1", base+"/chain")
		wantCode(t, r, 8, "--max-redirs 1 on a chain of 3")
		for _, w := range []string{"redirect limit is 1", base + "/redirect"} {
			if !strings.Contains(string(r.Stderr), w) {
				t.Errorf("--max-redirs 1: stderr lacks %q: %s", w, r.Stderr)
			}
		}
		r = runFetch(t, dir, nil, "--max-redirs", "3", base+"/chain")
		wantCode(t, r, 0, "--max-redirs 3 on a chain of 3")
		if string(r.Stdout) != "hello from lighttpd\n" {
			t.Errorf("--max-redirs 3: stdout %q", r.Stdout)
		}
	})
}
