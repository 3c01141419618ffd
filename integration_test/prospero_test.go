//go:build integration

package integration_test

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProspero drives the fetch binary against servers/prospero.sh: the
// replies of the real Prospero Alpha.5.2a dirsrv, served over ARDP on UDP.
func TestProspero(t *testing.T) {
	addr := env(t, "FETCH_IT_PROSPERO_ADDR")
	dir := env(t, "FETCH_IT_PROSPERO_DIR")
	base := "prospero://" + addr + "/"
	want := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	t.Run("README", func(t *testing.T) {
		r := runFetch(t, "", nil, "-s", base+"/srv/prospero/README")
		wantCode(t, r, 0, "fetch README")
		if !bytes.Equal(r.Stdout, want("README")) {
			t.Errorf("README: %q", r.Stdout)
		}
	})
	t.Run("huge", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "huge.txt")
		r := runFetch(t, "", nil, "-s", "-o", out, base+"/srv/prospero/pub/huge.txt")
		wantCode(t, r, 0, "fetch huge.txt")
		got, _ := os.ReadFile(out)
		if !bytes.Equal(got, want("pub/huge.txt")) {
			t.Errorf("huge.txt: %d bytes, want %d", len(got), len(want("pub/huge.txt")))
		}
	})
	t.Run("listing", func(t *testing.T) {
		r := runFetch(t, "", nil, "-s", base+"/srv/prospero")
		wantCode(t, r, 0, "list /srv/prospero")
		wantList := base + "/srv/prospero/README\n" + base + "/srv/prospero/pub/\n"
		if string(r.Stdout) != wantList {
			t.Fatalf("listing %q, want %q", r.Stdout, wantList)
		}
		// Every link is a URL the binary fetches (the replay server
		// knows no listing of pub).
		r = runFetch(t, "", nil, "-s", strings.Split(string(r.Stdout), "\n")[0])
		wantCode(t, r, 0, "fetch a listed link")
		r = runFetch(t, "", nil, "-s", "--list", "--json", base+"/srv/prospero")
		wantCode(t, r, 0, "--list --json /srv/prospero")
		if !strings.Contains(string(r.Stdout), `"name":"pub","url":"`+base+`/srv/prospero/pub/","kind":"directory"`) {
			t.Errorf("--list --json: no directory pub with a URL ending in /:\n%s", r.Stdout)
		}
		r = runFetch(t, "", nil, "-s", "--menu", base+"/srv/prospero")
		wantCode(t, r, 0, "--menu /srv/prospero")
		wantMenu := "README <" + base + "/srv/prospero/README>\npub <" + base + "/srv/prospero/pub/>\n"
		if string(r.Stdout) != wantMenu {
			t.Errorf("--menu %q, want %q", r.Stdout, wantMenu)
		}
	})
	t.Run("head", func(t *testing.T) {
		r := runFetch(t, "", nil, "-s", "-I", base+"/srv/prospero/README")
		wantCode(t, r, 0, "-I README")
		if !strings.Contains(string(r.Stdout), "35") {
			t.Errorf("-I output without the size 35:\n%s", r.Stdout)
		}
	})
	t.Run("verbose", func(t *testing.T) {
		r := runFetch(t, "", nil, "-v", base+"/srv/prospero/README")
		wantCode(t, r, 0, "-v README")
		if !strings.Contains(string(r.Stderr), "> GET-OBJECT-INFO CONTENTS ASCII /srv/prospero/README") {
			t.Errorf("trace without the CONTENTS request:\n%s", r.Stderr)
		}
	})
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/srv/prospero/nope", 7},
		{"/etc/passwd", 1}, // FAILURE NOT-AUTHORIZED: access refused, no credentials were sent
		{"/srv/prospero/Q%09Z", 11},
		{"/srv/prospero/a%0Ab", 11},
	} {
		t.Run("exit"+tc.path, func(t *testing.T) {
			r := runFetch(t, "", nil, "-s", base+tc.path)
			wantCode(t, r, tc.code, tc.path)
		})
	}
	t.Run("timeout", func(t *testing.T) {
		// A UDP port nobody answers on: an ICMP refusal (exit 5) or, where
		// that is filtered, a timeout (exit 10).
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		free := pc.LocalAddr().String()
		pc.Close()
		r := runFetch(t, "", nil, "-s", "--max-time", "3", "prospero://"+free+"//x")
		if r.Code != 5 && r.Code != 10 {
			t.Errorf("silent port: exit %d, want 5 or 10\n%s", r.Code, r.Stderr)
		}
	})
}
