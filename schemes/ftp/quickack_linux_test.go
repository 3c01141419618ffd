package ftp

import (
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestDelayedAck: a server that writes each reply in two pieces with
// Nagle's algorithm on holds the second until the first is acknowledged
// (issue 28, found on freeWAIS). The control connection acknowledges at
// once where it awaits a reply, so a pooled connection's exchanges take
// well under a delayed-ACK timer each.
func TestDelayedAck(t *testing.T) {
	s := newFakeServer(t)
	s.files["/d/a.bin"] = []byte("a")
	s.nagle = true
	s.start()
	h := &Handler{}
	defer h.Close()
	start := time.Now()
	for range 5 {
		if _, body, err := get(t, h, req(t, "ftp://"+s.addr()+"/d/a.bin")); err != nil || string(body) != "a" {
			t.Fatalf("fetch: %q, %v", body, err)
		}
	}
	took := time.Since(start)
	n := len(s.commands()[0])
	if n < 20 {
		t.Fatalf("%d commands, want 20 at least: %q", n, s.commands())
	}
	if took > time.Duration(n)*fetchtest.DelayedAckBound {
		t.Errorf("%d commands took %v: the replies waited for delayed ACKs", n, took)
	}
	t.Logf("%d commands in %v", n, took)
}
