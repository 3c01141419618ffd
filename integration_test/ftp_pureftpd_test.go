//go:build integration

package integration_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// pureftpdBase returns "ftp://user:pass@127.0.0.1:PORT" of the pure-ftpd
// started by servers/pureftpd.sh.
func pureftpdBase(t *testing.T) string {
	return "ftp://" + env(t, "FETCH_IT_PUREFTPD_USER") + ":" + env(t, "FETCH_IT_PUREFTPD_PASS") + "@" + env(t, "FETCH_IT_PUREFTPD_ADDR")
}

// TestPureftpdText: TYPE A delivers the file's LF line ends, -I its size
// (asked in TYPE I: pure-ftpd's SIZE in ASCII mode counts other bytes).
func TestPureftpdText(t *testing.T) {
	base := pureftpdBase(t)
	want, err := os.ReadFile(env(t, "FETCH_IT_PUREFTPD_TEXT"))
	if err != nil {
		t.Fatal(err)
	}
	r := runFetch(t, "", nil, base+"/pub/text.txt")
	wantCode(t, r, 0, "text file")
	if !bytes.Equal(r.Stdout, want) {
		t.Errorf("TYPE A body = %q, want %q", r.Stdout, want)
	}
	r = runFetch(t, "", nil, "-I", base+"/pub/text.txt")
	wantCode(t, r, 0, "-I of a text file")
	if !strings.Contains(string(r.Stdout), "size: "+strconv.Itoa(len(want))+"\n") {
		t.Errorf("-I does not give the file's size %d:\n%s", len(want), r.Stdout)
	}
	r = runFetch(t, "", nil, base+"/pub/missing.txt")
	wantCode(t, r, 7, "missing file")
}

// TestPureftpdEmptyCWD: pure-ftpd takes the empty CWD of "//" (RFC 1738
// §3.2.2) for the home directory: sent, and the fetch works.
func TestPureftpdEmptyCWD(t *testing.T) {
	r := runFetch(t, "", nil, "-v", pureftpdBase(t)+"//pub/sub/inner.txt")
	wantCode(t, r, 0, "empty CWD on pure-ftpd")
	if !bytes.Contains(r.Stderr, []byte("> CWD \n")) || string(r.Stdout) != "inner\n" {
		t.Errorf("stdout %q\n%s", r.Stdout, r.Stderr)
	}
}

// TestPureftpdMenu: pure-ftpd offers MLST: --menu names its directory
// with a final "/".
func TestPureftpdMenu(t *testing.T) {
	r := runFetch(t, "", nil, "-v", "--menu", pureftpdBase(t)+"/pub/")
	wantCode(t, r, 0, "--menu")
	addr := env(t, "FETCH_IT_PUREFTPD_ADDR")
	if !bytes.Contains(r.Stdout, []byte("sub <ftp://"+env(t, "FETCH_IT_PUREFTPD_USER")+"@"+addr+"/pub/sub/>\n")) || !bytes.Contains(r.Stderr, []byte("> MLSD\n")) {
		t.Errorf("menu:\n%s\n%s", r.Stdout, r.Stderr)
	}
}
