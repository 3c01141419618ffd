//go:build integration

package integration_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runColly builds examples/colly and crawls the seeds with it, returning
// its lines: "STATUS BYTES CONTENT-TYPE URL".
func runColly(t *testing.T, seeds ...string) map[string][]string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "colly")
	build := exec.Command("go", "build", "-o", bin, "./examples/colly")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/colly: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, seeds...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("colly %v: %v\n%s\n%s", seeds, err, out, stderr.String())
	}
	t.Logf("colly:\n%s", out)
	lines := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 {
			t.Fatalf("colly printed %q", l)
		}
		lines[f[len(f)-1]] = f[:len(f)-1]
	}
	return lines
}

// checkColly checks colly's lines: each URL in want reached with status
// 200 and, where the size is not -1, that many bytes; each directory an
// HTML page.
func checkColly(t *testing.T, lines map[string][]string, want map[string]int, dirs ...string) {
	t.Helper()
	for u, size := range want {
		l, ok := lines[u]
		if !ok {
			t.Errorf("colly never reached %s", u)
			continue
		}
		if l[0] != "200" {
			t.Errorf("%s: status %s", u, l[0])
		}
		if size >= 0 && l[1] != strconv.Itoa(size) {
			t.Errorf("%s: %s bytes, want %d", u, l[1], size)
		}
	}
	for _, dir := range dirs {
		if l := lines[dir]; len(l) < 3 || !strings.HasPrefix(l[2], "text/html") {
			t.Errorf("%s: %v, want an HTML page", dir, l)
		}
	}
}

// TestCollyGopher crawls the gophernicus hole with colly through
// fetch.NewRoundTripper: every item is reached by following the links of
// the HTML pages the menus become, with its bytes.
func TestCollyGopher(t *testing.T) {
	base, _ := gopherBase(t)
	lines := runColly(t, base+"/1/")
	checkColly(t, lines, map[string]int{
		base + "/0/text.txt":      -1, // gophernicus sends text with CR LF line ends
		base + "/9/bin.dat":       len(gopherFile(t, "bin.dat")),
		base + "/0/sub/inner.txt": -1,
	}, base+"/1/", base+"/1/sub/")
}

// TestCollyFTP crawls the vsftpd tree the same way.
func TestCollyFTP(t *testing.T) {
	base := "ftp://" + env(t, "FETCH_IT_FTP_ADDR")
	lines := runColly(t, base+"/pub/")
	checkColly(t, lines, map[string]int{
		base + "/pub/hello.txt":                            len("hello from vsftpd\n"),
		base + "/pub/nested/deep/er/file.txt":              len("deep\n"),
		base + "/pub/with%20space/name%20with%20space.txt": len("spaced out\n"),
	}, base+"/pub/", base+"/pub/nested/")
}
