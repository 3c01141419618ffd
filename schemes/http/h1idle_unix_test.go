//go:build unix

package http

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/fetch/wire"
)

// TestH1IdleStray: bytes a server sends on a kept-alive connection while
// it idles, unasked (here a whole reply), are no reply to the next
// request: the connection is discarded before reuse, and each URL gets
// its own body. Before, URL 2 got the stray reply and URL 3 URL 2's body.
func TestH1IdleStray(t *testing.T) {
	const stray = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray"
	for _, end := range []string{"stray reply", "stray byte", "closed"} {
		t.Run(end, func(t *testing.T) {
			var accepted atomic.Int32
			strayNow, sent := make(chan struct{}), make(chan struct{})
			addr := fetchtest.Serve(t, func(c net.Conn) {
				first := accepted.Add(1) == 1
				br := bufio.NewReader(c)
				for {
					r, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body := strings.TrimPrefix(r.URL.Path, "/")
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n"+body)
					if first {
						first = false
						<-strayNow
						switch end {
						case "stray reply":
							io.WriteString(c, stray)
						case "stray byte":
							io.WriteString(c, "\n")
						case "closed":
							c.(*net.TCPConn).CloseWrite()
						}
						close(sent)
					}
				}
			})
			h := newHandler(t)
			base := "http://" + addr
			if _, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/1")}); err != nil || string(body) != "1" {
				t.Fatalf("URL 1: %q, %v", body, err)
			}
			close(strayNow)
			<-sent
			waitReadable(t, h)
			var tr strings.Builder
			for _, n := range []string{"2", "3"} {
				_, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/"+n), Trace: fetch.NewTrace(&tr)})
				if err != nil || string(body) != n {
					t.Errorf("URL %s: %q, %v; want %q", n, body, err, n)
				}
			}
			if n := accepted.Load(); n != 2 {
				t.Errorf("%d connections, want 2", n)
			}
			if !strings.Contains(tr.String(), "discarding the idle connection") {
				t.Errorf("the trace does not tell the idle connection was discarded:\n%s", tr.String())
			}
		})
	}
}

// waitReadable waits until the one idle connection of h has something
// to read on its socket: what the server sent has arrived.
func waitReadable(t *testing.T, h *Handler) {
	t.Helper()
	h.mu.Lock()
	p := &h.plain.pool
	h.mu.Unlock()
	p.mu.Lock()
	var c net.Conn
	for _, hc := range p.hosts {
		if len(hc.idle) == 1 {
			c = hc.idle[0].conn
		}
	}
	p.mu.Unlock()
	tc, ok := wire.TCPConn(c)
	if !ok {
		t.Fatalf("no idle TCP connection: %v", c)
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, int((10 * time.Second).Milliseconds()))
			if err == unix.EINTR {
				continue
			}
			if n != 1 || err != nil {
				t.Errorf("the idle connection has nothing to read: %d, %v", n, err)
			}
			return
		}
	})
}
