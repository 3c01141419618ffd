//go:build integration

package integration_test

import (
	"strings"
	"testing"
)

// The busybox telnetd server (servers/busybox-telnetd.sh) runs a login
// program that accepts guest / s3cret, says "Login incorrect" and asks
// again otherwise, and prints the window size NAWS reported
// ("size=ROWSxCOLS").

// TestBusyboxTelnetWindowSize checks NAWS against busybox telnetd: the
// window size reaches the session's terminal as sent (80×24 without a
// terminal; the library's own answer was 65535×65535 with its 255 bytes
// not doubled, which busybox echoed into the session), and no 0xFF byte
// reaches the output.
func TestBusyboxTelnetWindowSize(t *testing.T) {
	addr := env(t, "FETCH_IT_BUSYBOX_TELNET_ADDR")
	for i := 0; i < 5; i++ {
		r := runFetch(t, "", []byte("guest\ns3cret\nsize\nquit\n"), "--max-time", "60", "telnet://"+addr+"/")
		wantCode(t, r, 0, "telnet to busybox telnetd")
		out := string(r.Stdout)
		if strings.Count(out, "size=24x80") != 2 || !strings.Contains(out, "bye") {
			t.Fatalf("run %d: want the window size 24x80 twice and bye:\n%q", i, out)
		}
		if strings.Contains(out, "\xff") {
			t.Fatalf("run %d: a 0xFF byte reached the output:\n%q", i, out)
		}
	}
}

// TestBusyboxTelnetLoginRefused checks that --telnet-login with a wrong
// password exits 6 (the server says "Login incorrect" and asks again),
// naming the URL, and that the right one logs in.
func TestBusyboxTelnetLoginRefused(t *testing.T) {
	addr := env(t, "FETCH_IT_BUSYBOX_TELNET_ADDR")
	r := runFetch(t, "", []byte("quit\n"), "--max-time", "60", "--telnet-login", "telnet://guest:wrong@"+addr+"/")
	wantCode(t, r, 6, "--telnet-login with a wrong password")
	if !strings.Contains(string(r.Stderr), "telnet://guest:****@"+addr) || !strings.Contains(string(r.Stderr), "Login incorrect") {
		t.Errorf("stderr should name the URL and the server's refusal:\n%s", r.Stderr)
	}
	r = runFetch(t, "", []byte("echo in\nquit\n"), "--max-time", "60", "--telnet-login", "telnet://guest:s3cret@"+addr+"/")
	wantCode(t, r, 0, "--telnet-login with the right password")
	if out := string(r.Stdout); !strings.Contains(out, "Welcome, guest") || !strings.Contains(out, "bye") {
		t.Errorf("output lacks the welcome or bye:\n%s", out)
	}
}

// TestBusyboxTelnetTimeoutNamesURL checks that a session cut by --max-time
// (the server still talking) exits 10 with an error line naming the URL.
func TestBusyboxTelnetTimeoutNamesURL(t *testing.T) {
	addr := env(t, "FETCH_IT_BUSYBOX_TELNET_ADDR")
	r := runFetch(t, "", []byte("guest\ns3cret\ntick\n"), "--max-time", "4", "telnet://"+addr+"/")
	wantCode(t, r, 10, "a session past --max-time")
	if !strings.Contains(string(r.Stderr), "telnet://"+addr) {
		t.Errorf("the timeout's error line does not name the URL:\n%s", r.Stderr)
	}
}
