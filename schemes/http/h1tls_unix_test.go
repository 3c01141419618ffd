//go:build unix

package http

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestH1TLSIdleClosed: a TLS connection the server closes while it idles
// (close_notify, then its end) is discarded before reuse, as a plain one
// is (TestH1IdleStray): the next request dials anew and gets its body.
func TestH1TLSIdleClosed(t *testing.T) {
	srvTLS, trust := testTLS(t)
	var accepted atomic.Int32
	closeNow, closed := make(chan struct{}), make(chan struct{})
	addr := fetchtest.Serve(t, func(raw net.Conn) {
		first := accepted.Add(1) == 1
		c := tls.Server(raw, srvTLS)
		br := bufio.NewReader(c)
		for {
			r, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			body := strings.TrimPrefix(r.URL.Path, "/")
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n"+body)
			if first {
				<-closeNow
				c.Close()
				close(closed)
				return
			}
		}
	})
	h := newHandler(t)
	base := "https://" + addr
	if _, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/1"), TLS: trust}); err != nil || string(body) != "1" {
		t.Fatalf("URL 1: %q, %v", body, err)
	}
	close(closeNow)
	<-closed
	waitReadable(t, h)
	var tr strings.Builder
	if _, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/2"), TLS: trust, Trace: fetch.NewTrace(&tr)}); err != nil || string(body) != "2" {
		t.Errorf("URL 2: %q, %v", body, err)
	}
	if n := accepted.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
	if !strings.Contains(tr.String(), "discarding the idle connection") {
		t.Errorf("the trace does not tell the idle connection was discarded:\n%s", tr.String())
	}
}
