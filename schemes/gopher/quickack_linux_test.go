package gopher

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/fetch/wire"
)

// TestDelayedAck: a server that writes its reply in two pieces with
// Nagle's algorithm on holds the second until the first is acknowledged
// (issue 28, found on freeWAIS); one that then lingers before it closes
// (a slow menu's generation; the close would send what Nagle holds) has
// the client waiting for its own delayed-ACK timer. The client
// acknowledges at once where it awaits the reply, so twenty fetches take
// well under a delayed-ACK timer each more than twenty of the same reply
// written whole.
func TestDelayedAck(t *testing.T) {
	menu := "iwelcome\t\terror.host\t1\r\n0a file\t/a\th\t70\r\n1a menu\t/m\th\t70\r\n.\r\n"
	routes := map[string]respond{
		"/m": func(c net.Conn, br *bufio.Reader, _ string) { // in two pieces, Nagle on
			if _, err := fetchtest.NagleConn(c).Write([]byte(menu)); err != nil {
				return
			}
			tc, _ := wire.TCPConn(c)
			waitAcked(t, tc)
		},
		"/w": func(c net.Conn, br *bufio.Reader, _ string) { // whole: no ACK to wait for
			if _, err := c.Write([]byte(menu)); err != nil {
				return
			}
			tc, _ := wire.TCPConn(c)
			waitAcked(t, tc)
		},
	}
	serverTLS, clientTLS := fetchtest.TLS(t)
	for _, tt := range []struct {
		scheme string
		addr   string
	}{
		{"gopher", newServer(t, routes).addr},
		// The TLS handshake leaves the client in the kernel's
		// interactive mode, where it delays its ACKs.
		{"gophers", newTLSServer(t, routes, serverTLS).addr},
	} {
		h := &Handler{}
		const rounds = 20
		// Each fetch of the two-piece reply is timed beside one of the
		// same menu written whole, one after the other, so that what a
		// busy machine adds to both (TLS handshakes, scheduling) cancels
		// out and the difference is what waiting for ACKs adds.
		var split, whole time.Duration
		for range rounds {
			for _, sel := range []string{"/1/m", "/1/w"} {
				start := time.Now()
				_, body, err := get(t, h, tt.scheme+"://"+tt.addr+sel, func(r *fetch.Request) { r.TLS = clientTLS })
				if err != nil || !strings.Contains(string(body), "a menu") {
					t.Fatalf("%s%s: fetch: %q, %v", tt.scheme, sel, body, err)
				}
				if sel == "/1/m" {
					split += time.Since(start)
				} else {
					whole += time.Since(start)
				}
			}
		}
		if extra := split - whole; extra > rounds*fetchtest.DelayedAckBound {
			t.Errorf("%s: %d fetches of a two-piece reply took %v, %v more than of a whole one: the replies waited for delayed ACKs", tt.scheme, rounds, split, extra)
		}
		t.Logf("%s: %d fetches in %v, of the whole reply %v", tt.scheme, rounds, split, whole)
	}
}

// waitAcked waits until everything written on c is acknowledged (the
// send queue, SIOCOUTQ, is empty), for 2 s at most.
func waitAcked(t *testing.T, c *net.TCPConn) {
	rc, err := c.SyscallConn()
	if err != nil {
		t.Error(err)
		return
	}
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Microsecond) {
		n := -1
		rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) })
		if n == 0 {
			return
		}
	}
}
