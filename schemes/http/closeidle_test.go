package http

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// TestCloseIdle: CloseIdle closes the idle connection to one address and
// keeps another address's for reuse; the server sees the first closed.
func TestCloseIdle(t *testing.T) {
	closed := make(chan string, 4)
	newServer := func() *httptest.Server {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "ok")
		}))
		srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
			if s == http.StateClosed {
				closed <- c.LocalAddr().String()
			}
		}
		srv.Start()
		t.Cleanup(srv.Close)
		return srv
	}
	a, b := newServer(), newServer()
	h := &Handler{}
	c := &fetch.Client{}
	c.Register("http", h)
	get := func(srv *httptest.Server) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := c.Fetch(ctx, srv.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	get(a)
	get(b)
	addrA := strings.TrimPrefix(a.URL, "http://")
	c.CloseIdle(addrA)
	select {
	case got := <-closed:
		if got != addrA {
			t.Fatalf("the connection to %s closed, want the one to %s", got, addrA)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the idle connection to %s is still open after CloseIdle", addrA)
	}
	h.plain.pool.mu.Lock()
	idleB := len(h.plain.pool.hosts[strings.TrimPrefix(b.URL, "http://")].idle)
	h.plain.pool.mu.Unlock()
	if idleB != 1 {
		t.Errorf("%d idle connections to the other server, want 1 (kept)", idleB)
	}
	select {
	case got := <-closed:
		t.Errorf("the connection to %s closed too", got)
	default:
	}
}
