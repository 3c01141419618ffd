//go:build integration

package integration_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ftpMeta returns the size and modification time -I reports for an FTP URL
// (SIZE and MDTM).
func ftpMeta(t *testing.T, u string) (int64, time.Time) {
	t.Helper()
	r := runFetch(t, "", nil, "-I", u)
	wantCode(t, r, 0, "-I "+u)
	size := regexp.MustCompile(`(?m)^size: (\d+)$`).FindSubmatch(r.Stdout)
	mod := regexp.MustCompile(`(?m)^modified: (\S+)$`).FindSubmatch(r.Stdout)
	if size == nil || mod == nil {
		t.Fatalf("-I %s: no size or modified:\n%s", u, r.Stdout)
	}
	n, _ := strconv.ParseInt(string(size[1]), 10, 64)
	mt, err := time.Parse(time.RFC3339, string(mod[1]))
	if err != nil {
		t.Fatal(err)
	}
	return n, mt
}

// -R gives the file vsftpd's MDTM time.
func TestFTPRemoteTime(t *testing.T) {
	u := ftpBase(t) + "/small/f001.bin"
	_, mt := ftpMeta(t, u)
	dir := t.TempDir()
	r := runFetch(t, dir, nil, "-R", "-o", "f.bin", u)
	wantCode(t, r, 0, "-R")
	fi, err := os.Stat(filepath.Join(dir, "f.bin"))
	if err != nil || !fi.ModTime().Equal(mt) {
		t.Errorf("-R: the file's time is %v (%v), want the server's %v", fi.ModTime(), err, mt)
	}
	r = runFetch(t, dir, nil, "-o", "g.bin", u)
	wantCode(t, r, 0, "without -R")
	if fi, _ := os.Stat(filepath.Join(dir, "g.bin")); fi.ModTime().Equal(mt) {
		t.Error("without -R the file has the server's time")
	}
}

// --limit-rate holds an FTP transfer to its rate: a file at half its size
// a second takes more than 1.5 s (a lower bound only: a busy machine is
// slower, never faster).
func TestFTPLimitRate(t *testing.T) {
	u := ftpBase(t) + "/small/f001.bin"
	size, _ := ftpMeta(t, u)
	rate := max(size/2, 1)
	start := time.Now()
	r := runFetch(t, "", nil, "-s", "--limit-rate", strconv.FormatInt(rate, 10), "-w", "%{size_download}", u)
	took := time.Since(start)
	wantCode(t, r, 0, "--limit-rate")
	if !strings.HasSuffix(string(r.Stdout), strconv.FormatInt(size, 10)) || int64(len(r.Stdout)) != size+int64(len(strconv.FormatInt(size, 10))) {
		t.Errorf("--limit-rate: %d bytes out, want the file's %d and -w's count", len(r.Stdout), size)
	}
	if took < 1500*time.Millisecond {
		t.Errorf("%d bytes at %d a second took %v", size, rate, took)
	}
}

// -w reports an FTP transfer; --max-filesize refuses the 64 MiB file at
// once (SIZE), exit 12, leaving no file.
func TestFTPWriteOutMaxFilesize(t *testing.T) {
	u := ftpBase(t) + "/small/f001.bin"
	size, _ := ftpMeta(t, u)
	r := runFetch(t, "", nil, "-o", "/dev/null", "-w", "%{scheme} %{size_download} %{exitcode} %{time_connect}", u)
	wantCode(t, r, 0, "-w")
	f := strings.Fields(string(r.Stdout))
	if len(f) != 4 || f[0] != "ftp" || f[1] != strconv.FormatInt(size, 10) || f[2] != "0" || f[3] == "0.000000" {
		t.Errorf("-w: %q", r.Stdout)
	}
	dir := t.TempDir()
	r = runFetch(t, dir, nil, "--max-filesize", "1M", "-o", "big.bin", ftpBase(t)+"/big.bin")
	wantCode(t, r, 12, "--max-filesize")
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("--max-filesize left %v", left)
	}
}
