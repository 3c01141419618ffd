//go:build integration

package integration_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTTPPipeline fetches 60 files with --pipeline from nginx (over http
// and https) and from lighttpd over two connections, eight requests on
// each at once, and checks every file and that the requests were
// pipelined.
func TestHTTPPipeline(t *testing.T) {
	for _, srv := range []struct{ name, addrVar, rootVar, scheme string }{
		{"nginx", "FETCH_IT_HTTP_ADDR", "FETCH_IT_HTTP_ROOT", "http"},
		{"nginx-tls", "FETCH_IT_HTTPS_ADDR", "FETCH_IT_HTTP_ROOT", "https"},
		{"lighttpd", "FETCH_IT_LIGHTTPD_ADDR", "FETCH_IT_LIGHTTPD_ROOT", "http"},
	} {
		t.Run(srv.name, func(t *testing.T) {
			addr, root := env(t, srv.addrVar), env(t, srv.rootVar)
			var tlsArgs []string
			if srv.scheme == "https" {
				tlsArgs = []string{"--cacert", env(t, "FETCH_IT_HTTP_CACERT")}
			}
			src := filepath.Join(root, "pipeline")
			if err := os.MkdirAll(src, 0o755); err != nil {
				t.Fatal(err)
			}
			const n = 60
			var urls []string
			for i := range n {
				// Sizes from a few bytes to past a read buffer, so that
				// replies end mid-buffer and span buffers.
				body := bytes.Repeat([]byte(fmt.Sprintf("%s file %d\n", srv.name, i)), 1+i*i*3)
				if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("p%02d.txt", i)), body, 0o644); err != nil {
					t.Fatal(err)
				}
				urls = append(urls, fmt.Sprintf("%s://%s/pipeline/p%02d.txt", srv.scheme, addr, i))
			}
			dir := t.TempDir()
			args := append(append([]string{"-v", "-s", "--parallel", "16", "--per-host", "2", "--pipeline", "8", "-O"}, tlsArgs...), urls...)
			r := runFetch(t, dir, nil, args...)
			wantCode(t, r, 0, "--pipeline 8 of 60 files")
			for i := range n {
				name := fmt.Sprintf("p%02d.txt", i)
				want, _ := os.ReadFile(filepath.Join(src, name))
				if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes, %v; want the server's %d", name, len(got), err, len(want))
				}
			}
			trace := string(r.Stderr)
			if c := strings.Count(trace, "connected to"); c > 2 {
				t.Errorf("%d connections, want at most 2 (--per-host 2)", c)
			}
			if !strings.Contains(trace, "pipelining on the connection") {
				t.Errorf("no request was pipelined:\n%s", trace)
			}
		})
	}
}
