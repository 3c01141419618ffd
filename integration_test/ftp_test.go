//go:build integration

package integration_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ftpBase returns "ftp://127.0.0.1:PORT" of the vsftpd started by
// servers/ftp.sh.
func ftpBase(t *testing.T) string {
	return "ftp://" + env(t, "FETCH_IT_FTP_ADDR")
}

// ftpUser returns "ftp://user:pass@127.0.0.1:PORT" and the password.
func ftpUser(t *testing.T) (string, string) {
	pass := env(t, "FETCH_IT_FTP_PASS")
	return "ftp://" + env(t, "FETCH_IT_FTP_USER") + ":" + pass + "@" + env(t, "FETCH_IT_FTP_ADDR"), pass
}

// sent returns the commands a -v trace shows sent, in order.
func sent(stderr []byte) []string {
	var out []string
	for _, l := range strings.Split(string(stderr), "\n") {
		if cmd, ok := strings.CutPrefix(l, "> "); ok {
			out = append(out, cmd)
		}
	}
	return out
}

func TestFTPAnonymous(t *testing.T) {
	r := runFetch(t, "", nil, ftpBase(t)+"/pub/hello.txt")
	wantCode(t, r, 0, "anonymous fetch")
	if string(r.Stdout) != "hello from vsftpd\n" {
		t.Errorf("body = %q", r.Stdout)
	}
}

func TestFTPUserLogin(t *testing.T) {
	base, pass := ftpUser(t)
	r := runFetch(t, "", nil, "-v", base+"/sub/inner.txt")
	wantCode(t, r, 0, "user fetch")
	if string(r.Stdout) != "sub\n" {
		t.Errorf("body = %q", r.Stdout)
	}
	if bytes.Contains(r.Stderr, []byte(pass)) || !bytes.Contains(r.Stderr, []byte("> PASS ****")) {
		t.Errorf("trace does not mask the password:\n%s", r.Stderr)
	}
	// -u supplies the password a URL lacks.
	r = runFetch(t, "", nil, "-u", env(t, "FETCH_IT_FTP_USER")+":"+pass, ftpBase(t)+"/private.txt")
	wantCode(t, r, 0, "fetch with -u")
	if string(r.Stdout) != "private\n" {
		t.Errorf("body with -u = %q", r.Stdout)
	}
}

// TestFTPCommandSequence: one CWD per segment, in order, decoded.
func TestFTPCommandSequence(t *testing.T) {
	r := runFetch(t, "", nil, "-v", ftpBase(t)+"/pub/nested/deep/er/file.txt")
	wantCode(t, r, 0, "nested fetch")
	want := []string{"USER anonymous", "PWD", "CWD pub", "CWD nested", "CWD deep", "CWD er", "TYPE A", "EPSV", "RETR file.txt"}
	if got := sent(r.Stderr); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sent %q\nwant %q", got, want)
	}
	if !strings.Contains(string(r.Stderr), "no typecode: TYPE A") {
		t.Errorf("trace does not say which type was guessed:\n%s", r.Stderr)
	}
	r = runFetch(t, "", nil, "-v", ftpBase(t)+"/pub/with%20space/name%20with%20space.txt")
	wantCode(t, r, 0, "names with spaces")
	if string(r.Stdout) != "spaced out\n" {
		t.Errorf("body = %q", r.Stdout)
	}
	if !bytes.Contains(r.Stderr, []byte("> CWD with space\n")) || !bytes.Contains(r.Stderr, []byte("> RETR name with space.txt\n")) {
		t.Errorf("spaces not decoded in the commands:\n%s", r.Stderr)
	}
	// The dry run states the same commands without connecting.
	r = runFetch(t, "", nil, "--dry-run", ftpBase(t)+"/pub/nested/deep/er/file.txt")
	wantCode(t, r, 0, "dry run")
	if !strings.Contains(string(r.Stdout), "CWD pub\nCWD nested\nCWD deep\nCWD er\nTYPE A\nEPSV\nRETR file.txt\n") {
		t.Errorf("dry run:\n%s", r.Stdout)
	}
	// vsftpd refuses the empty CWD of "//" (RFC 1738 §3.2.2): sent all the same.
	r = runFetch(t, "", nil, "-v", ftpBase(t)+"//pub/hello.txt")
	wantCode(t, r, 7, "empty CWD on vsftpd")
	if !bytes.Contains(r.Stderr, []byte("> CWD \n")) || !bytes.Contains(r.Stderr, []byte("%2F")) {
		t.Errorf("no empty CWD sent, or no pointer to %%2F:\n%s", r.Stderr)
	}
}

func TestFTPBigFile(t *testing.T) {
	dir := t.TempDir()
	r := runFetch(t, dir, nil, "-s", "-o", "big.bin", ftpBase(t)+"/big.bin")
	wantCode(t, r, 0, "64 MiB fetch")
	f, err := os.ReadFile(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(f)
	if got, want := hex.EncodeToString(sum[:]), env(t, "FETCH_IT_FTP_BIG_SHA256"); got != want || len(f) != 64<<20 {
		t.Errorf("big.bin: %d bytes, sha256 %s, want %d bytes, %s", len(f), got, 64<<20, want)
	}
	r = runFetch(t, "", nil, "-I", ftpBase(t)+"/big.bin")
	wantCode(t, r, 0, "-I")
	if !strings.Contains(string(r.Stdout), "size: 67108864") || !strings.Contains(string(r.Stdout), "modified: ") {
		t.Errorf("-I output:\n%s", r.Stdout)
	}
}

func TestFTPResume(t *testing.T) {
	dir := t.TempDir()
	r := runFetch(t, dir, nil, "-o", "full.bin", ftpBase(t)+"/small/f001.bin")
	wantCode(t, r, 0, "full fetch")
	full, _ := os.ReadFile(filepath.Join(dir, "full.bin"))
	if err := os.WriteFile(filepath.Join(dir, "part.bin"), full[:300], 0o644); err != nil {
		t.Fatal(err)
	}
	r = runFetch(t, dir, nil, "-v", "-C", "-", "-o", "part.bin", ftpBase(t)+"/small/f001.bin")
	wantCode(t, r, 0, "resume")
	part, _ := os.ReadFile(filepath.Join(dir, "part.bin"))
	if !bytes.Equal(part, full) {
		t.Errorf("resumed file: %d bytes, want %d equal bytes", len(part), len(full))
	}
	if !bytes.Contains(r.Stderr, []byte("> REST 300\n")) {
		t.Errorf("no REST 300 in the trace:\n%s", r.Stderr)
	}
}

func TestFTPListing(t *testing.T) {
	r := runFetch(t, "", nil, ftpBase(t)+"/pub/")
	wantCode(t, r, 0, "listing")
	for _, n := range []string{"hello.txt\n", "nested\n", "with space\n"} {
		if !strings.Contains(string(r.Stdout), n) {
			t.Errorf("listing lacks %q:\n%s", n, r.Stdout)
		}
	}
	if bytes.Contains(r.Stdout, []byte("\r")) {
		t.Errorf("listing has CR:\n%q", r.Stdout)
	}
	r = runFetch(t, "", nil, "-v", ftpBase(t)+"/pub/nested;type=d")
	wantCode(t, r, 0, "type=d listing")
	if !bytes.Contains(r.Stderr, []byte("> NLST nested\n")) || strings.TrimSpace(string(r.Stdout)) == "" {
		t.Errorf("type=d: stdout %q\n%s", r.Stdout, r.Stderr)
	}
}

func TestFTPErrors(t *testing.T) {
	r := runFetch(t, "", nil, ftpBase(t)+"/pub/missing.bin")
	wantCode(t, r, 7, "missing file")
	r = runFetch(t, "", nil, ftpBase(t)+"/nodir/x.bin")
	wantCode(t, r, 7, "missing folder")
	base, pass := ftpUser(t)
	bad := strings.Replace(base, ":"+pass+"@", ":wrong-pass-42@", 1)
	r = runFetch(t, "", nil, "-v", bad+"/private.txt")
	wantCode(t, r, 6, "wrong password")
	if bytes.Contains(r.Stderr, []byte("wrong-pass-42")) {
		t.Errorf("stderr shows the password:\n%s", r.Stderr)
	}
	r = runFetch(t, "", nil, "-u", env(t, "FETCH_IT_FTP_USER"), ftpBase(t)+"/private.txt")
	wantCode(t, r, 6, "user without a password and no terminal")
	if !bytes.Contains(r.Stderr, []byte("-u USER:PASS")) {
		t.Errorf("no hint to give the password:\n%s", r.Stderr)
	}
}

// smallURLs returns the URLs of every file in /small.
func smallURLs(t *testing.T) []string {
	n, err := strconv.Atoi(env(t, "FETCH_IT_FTP_SMALL"))
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for i := 1; i <= n; i++ {
		urls = append(urls, fmt.Sprintf("%s/small/f%03d.bin", ftpBase(t), i))
	}
	return urls
}

// TestFTPReuse: many small files over one control connection, one login.
func TestFTPReuse(t *testing.T) {
	urls := smallURLs(t)
	r := runFetch(t, "", nil, append([]string{"-v"}, urls...)...)
	wantCode(t, r, 0, "many small files")
	if len(r.Stdout) != 1024*len(urls) {
		t.Errorf("%d bytes, want %d", len(r.Stdout), 1024*len(urls))
	}
	if n := bytes.Count(r.Stderr, []byte("> USER ")); n != 1 {
		t.Errorf("%d logins for %d files, want 1", n, len(urls))
	}
	// Different folders: back to the login directory with one absolute CWD.
	r = runFetch(t, "", nil, "-v", ftpBase(t)+"/pub/hello.txt", ftpBase(t)+"/small/f002.bin")
	wantCode(t, r, 0, "two folders")
	if n := bytes.Count(r.Stderr, []byte("> USER ")); n != 1 || !bytes.Contains(r.Stderr, []byte("> CWD /\n")) {
		t.Errorf("want one login and a CWD / between folders:\n%s", r.Stderr)
	}
	// In parallel, each transfer in progress has its own connection.
	r = runFetch(t, "", nil, append([]string{"-v", "--parallel", "4", "--per-host", "4"}, urls...)...)
	wantCode(t, r, 0, "parallel small files")
	if n := bytes.Count(r.Stderr, []byte("> USER ")); n < 1 || n > 4 {
		t.Errorf("%d logins with --parallel 4, want 1 to 4", n)
	}
}

func TestFTPActive(t *testing.T) {
	r := runFetch(t, "", nil, "-v", "--ftp-active", ftpBase(t)+"/pub/hello.txt")
	wantCode(t, r, 0, "active mode")
	if string(r.Stdout) != "hello from vsftpd\n" || !bytes.Contains(r.Stderr, []byte("> EPRT |1|127.0.0.1|")) {
		t.Errorf("active: %q\n%s", r.Stdout, r.Stderr)
	}
}

// TestFTPTLS: explicit AUTH TLS (--ftp-ssl) and implicit TLS (ftps://),
// both with TLS on the data connections too.
func TestFTPTLS(t *testing.T) {
	ca := env(t, "FETCH_IT_FTP_CA")
	r := runFetch(t, "", nil, "-v", "--ftp-ssl", "--cacert", ca, "ftp://"+env(t, "FETCH_IT_FTP_TLS_ADDR")+"/pub/hello.txt")
	wantCode(t, r, 0, "AUTH TLS")
	if string(r.Stdout) != "hello from vsftpd\n" || !bytes.Contains(r.Stderr, []byte("> AUTH TLS\n")) || !bytes.Contains(r.Stderr, []byte("> PROT P\n")) {
		t.Errorf("AUTH TLS: %q\n%s", r.Stdout, r.Stderr)
	}
	// Several files over one TLS control connection: each data connection
	// resumes its TLS session, which vsftpd requires (require_ssl_reuse).
	tb := "ftp://" + env(t, "FETCH_IT_FTP_TLS_ADDR")
	r = runFetch(t, "", nil, "-v", "--ftp-ssl", "--cacert", ca, tb+"/small/f001.bin", tb+"/small/f002.bin", tb+"/pub/hello.txt")
	wantCode(t, r, 0, "AUTH TLS, three files")
	if n := bytes.Count(r.Stderr, []byte("> AUTH TLS\n")); n != 1 || len(r.Stdout) != 2048+18 {
		t.Errorf("three files over TLS: %d bytes, %d logins\n%s", len(r.Stdout), n, r.Stderr)
	}
	// The server requires TLS: without --ftp-ssl the login is refused.
	r = runFetch(t, "", nil, "ftp://"+env(t, "FETCH_IT_FTP_TLS_ADDR")+"/pub/hello.txt")
	wantCode(t, r, 6, "plain login to a TLS-only server")

	base, pass := ftpUser(t)
	user := strings.TrimPrefix(strings.SplitN(base, "@", 2)[0], "ftp://")
	r = runFetch(t, "", nil, "-v", "--cacert", ca, "ftps://"+user+"@"+env(t, "FETCH_IT_FTPS_ADDR")+"/private.txt")
	wantCode(t, r, 0, "implicit TLS")
	if string(r.Stdout) != "private\n" || bytes.Contains(r.Stderr, []byte(pass)) {
		t.Errorf("ftps: %q\n%s", r.Stdout, r.Stderr)
	}
	// An unknown certificate is refused.
	r = runFetch(t, "", nil, "ftps://"+env(t, "FETCH_IT_FTPS_ADDR")+"/pub/hello.txt")
	if r.Code == 0 {
		t.Errorf("ftps with an unverified certificate succeeded")
	}
}
