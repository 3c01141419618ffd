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

// TestCollyGopherAndFTP crawls the gophernicus hole and the vsftpd tree
// with colly through fetch.NewRoundTripper: every item and file is
// reached by following the links of the HTML pages menus and directories
// become, with its bytes.
func TestCollyGopherAndFTP(t *testing.T) {
	gbase, _ := gopherBase(t)
	fbase := "ftp://" + env(t, "FETCH_IT_FTP_ADDR")
	lines := runColly(t, gbase+"/1/", fbase+"/pub/")
	want := map[string]int{
		gbase + "/0/text.txt":                               -1,
		gbase + "/9/bin.dat":                                len(gopherFile(t, "bin.dat")),
		gbase + "/1/sub/":                                   -1,
		fbase + "/pub/hello.txt":                            len("hello from vsftpd\n"),
		fbase + "/pub/nested/deep/er/file.txt":              len("deep\n"),
		fbase + "/pub/with%20space/name%20with%20space.txt": len("spaced out\n"),
	}
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
	for _, dir := range []string{gbase + "/1/", fbase + "/pub/"} {
		if l := lines[dir]; len(l) < 3 || !strings.HasPrefix(l[2], "text/html") {
			t.Errorf("%s: %v, want an HTML page", dir, l)
		}
	}
}
