package ftp

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// TestCloseIdle: CloseIdle closes the pooled control connection to one
// server, saying QUIT, and keeps the other server's.
func TestCloseIdle(t *testing.T) {
	var servers []*fakeServer
	for range 2 {
		s := newFakeServer(t)
		s.files["/f.txt"] = []byte("hello")
		servers = append(servers, s.start())
	}
	h := &Handler{}
	defer h.Close()
	c := &fetch.Client{}
	c.Register("ftp", h)
	for _, s := range servers {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := c.Fetch(ctx, "ftp://"+s.addr()+"/f.txt")
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		cancel()
	}
	if n := h.pool().Len(); n != 2 {
		t.Fatalf("%d idle connections, want 2", n)
	}
	c.CloseIdle(servers[0].addr())
	if n := h.pool().Len(); n != 1 {
		t.Fatalf("%d idle connections after CloseIdle, want 1 (the other server's)", n)
	}
	if _, ok := h.pool().Get("ftp\x00" + servers[1].addr() + "\x00anonymous\x00true\x00" + h.anonPassword()); !ok {
		t.Errorf("the other server's connection is not the one kept")
	}
}
