//go:build integration

package integration_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// proftpdBase returns "ftp://127.0.0.1:PORT" of the proftpd started by
// servers/proftpd.sh.
func proftpdBase(t *testing.T) string {
	return "ftp://" + env(t, "FETCH_IT_PROFTPD_ADDR")
}

// TestProftpdMissingFile: proftpd answers SIZE and RETR of a missing file
// with 550 and closes its passive port, so the data dial is refused or
// reset; the reply decides, every time: exit 7, not 5.
func TestProftpdMissingFile(t *testing.T) {
	base := proftpdBase(t)
	for i := 0; i < 10; i++ {
		r := runFetch(t, "", nil, base+"/pub/missing.txt")
		wantCode(t, r, 7, "missing file on proftpd, run "+strconv.Itoa(i+1))
	}
	// Several missing files in one run share a connection kept in step.
	r := runFetch(t, "", nil, "-v", base+"/pub/missing.txt", base+"/pub/missing.bin", base+"/pub/text.txt")
	if r.Code == 0 || r.Code == 5 {
		t.Errorf("two missing files and a present one: exit %d\n%s", r.Code, r.Stderr)
	}
	if n := bytes.Count(r.Stderr, []byte("> USER ")); n != 1 {
		t.Errorf("%d logins for three URLs, want 1:\n%s", n, r.Stderr)
	}
}

// TestProftpdText: TYPE A delivers the file with its LF line ends (the
// wire has CR LF), --raw the wire's bytes, and -I the file's size, asked in
// TYPE I (proftpd refuses SIZE in ASCII mode).
func TestProftpdText(t *testing.T) {
	base := proftpdBase(t)
	want, err := os.ReadFile(env(t, "FETCH_IT_PROFTPD_TEXT"))
	if err != nil {
		t.Fatal(err)
	}
	r := runFetch(t, "", nil, "-v", base+"/pub/text.txt")
	wantCode(t, r, 0, "text file")
	if !bytes.Equal(r.Stdout, want) {
		t.Errorf("TYPE A body = %q, want %q", r.Stdout, want)
	}
	if !bytes.Contains(r.Stderr, []byte("> TYPE A\n")) {
		t.Errorf("no TYPE A:\n%s", r.Stderr)
	}
	r = runFetch(t, "", nil, "--raw", base+"/pub/text.txt")
	wantCode(t, r, 0, "text file, --raw")
	if wire := bytes.ReplaceAll(want, []byte("\n"), []byte("\r\n")); !bytes.Equal(r.Stdout, wire) {
		t.Errorf("--raw body = %q, want %q", r.Stdout, wire)
	}
	r = runFetch(t, "", nil, "-v", "-I", base+"/pub/text.txt")
	wantCode(t, r, 0, "-I of a text file")
	if !strings.Contains(string(r.Stdout), "size: "+strconv.Itoa(len(want))+"\n") {
		t.Errorf("-I does not give the file's size %d:\n%s\n%s", len(want), r.Stdout, r.Stderr)
	}
	// Resuming a text transfer is refused: its offsets are not the file's.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.txt"), want[:10], 0o644); err != nil {
		t.Fatal(err)
	}
	r = runFetch(t, dir, nil, "-C", "-", "-o", "t.txt", base+"/pub/text.txt")
	wantCode(t, r, 4, "resume of a TYPE A transfer")
	if !strings.Contains(string(r.Stderr), ";type=i") {
		t.Errorf("the refusal does not say how to resume:\n%s", r.Stderr)
	}
	r = runFetch(t, dir, nil, "-C", "-", "-o", "t.txt", base+"/pub/text.txt;type=i")
	wantCode(t, r, 0, "resume in TYPE I")
	if got, _ := os.ReadFile(filepath.Join(dir, "t.txt")); !bytes.Equal(got, want) {
		t.Errorf("resumed in TYPE I: %q, want %q", got, want)
	}
}

// TestProftpdBinary: TYPE I moves every byte, CR LF pairs included.
func TestProftpdBinary(t *testing.T) {
	r := runFetch(t, "", nil, proftpdBase(t)+"/pub/data.bin")
	wantCode(t, r, 0, "binary file")
	sum := sha256.Sum256(r.Stdout)
	if got := hex.EncodeToString(sum[:]); got != env(t, "FETCH_IT_PROFTPD_BIN_SHA256") {
		t.Errorf("data.bin: %d bytes, sha256 %s", len(r.Stdout), got)
	}
	r = runFetch(t, "", nil, proftpdBase(t)+"/pub/sub/inner.txt")
	wantCode(t, r, 0, "file in a subdirectory")
	if string(r.Stdout) != "inner\n" {
		t.Errorf("inner.txt = %q", r.Stdout)
	}
	r = runFetch(t, "", nil, proftpdBase(t)+"/pub/")
	wantCode(t, r, 0, "listing")
	for _, n := range []string{"text.txt\n", "data.bin\n", "sub\n"} {
		if !strings.Contains(string(r.Stdout), n) {
			t.Errorf("listing lacks %q:\n%s", n, r.Stdout)
		}
	}
}

// TestProftpdEmptyCWD: "//" means an empty CWD (RFC 1738 §3.2.2), which
// proftpd refuses with 501: the error says so and gives the %2F form.
func TestProftpdEmptyCWD(t *testing.T) {
	r := runFetch(t, "", nil, "-v", proftpdBase(t)+"//pub/text.txt")
	wantCode(t, r, 7, "empty CWD on proftpd")
	if !bytes.Contains(r.Stderr, []byte("> CWD \n")) || !bytes.Contains(r.Stderr, []byte("501")) {
		t.Errorf("no empty CWD sent, or no 501:\n%s", r.Stderr)
	}
	if !bytes.Contains(r.Stderr, []byte("%2F")) {
		t.Errorf("the error does not point to %%2F:\n%s", r.Stderr)
	}
	r = runFetch(t, "", nil, proftpdBase(t)+"/%2Fpub/text.txt")
	wantCode(t, r, 0, "the %2F form")
}
