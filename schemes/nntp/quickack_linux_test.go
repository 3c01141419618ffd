package nntp

import (
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestDelayedAck: a server that writes each reply in two pieces with
// Nagle's algorithm on holds the second until the first is acknowledged
// (issue 28, found on freeWAIS). The session acknowledges at once where
// it awaits a reply, so a pooled connection's exchanges take well under
// a delayed-ACK timer each.
func TestDelayedAck(t *testing.T) {
	f := newServer(t)
	f.nagle = true
	addr := f.start(nil)
	h := newHandler(t, addr)
	start := time.Now()
	for i := range 10 {
		if _, _, err := get(t, h, "nntp://"+addr+"/local.test/"+string(rune('1'+i%2))); err != nil {
			t.Fatal(err)
		}
	}
	took := time.Since(start)
	n := len(f.received())
	if n < 10 {
		t.Fatalf("%d commands, want 10 at least: %q", n, f.received())
	}
	if took > time.Duration(n)*fetchtest.DelayedAckBound {
		t.Errorf("%d commands took %v: the replies waited for delayed ACKs", n, took)
	}
	t.Logf("%d commands in %v", n, took)
}
