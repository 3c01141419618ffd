package mailto

import (
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestDelayedAck: a relay that writes each reply in two pieces with
// Nagle's algorithm on holds the second until the first is acknowledged
// (issue 28, found on freeWAIS). The client acknowledges at once where it
// awaits a reply, so the exchanges of five messages take well under a
// delayed-ACK timer each.
func TestDelayedAck(t *testing.T) {
	rs := startRelay(t, &relayServer{nagle: true}, nil)
	h := &Handler{Relay: rs.Addr, Hello: "client.test"}
	var trace strings.Builder
	start := time.Now()
	for range 5 {
		if _, err := send(t, h, "mailto:joe@example.com", "Subject: hi\n\nhello\n", &trace); err != nil {
			t.Fatalf("Fetch: %v\n%s", err, trace.String())
		}
	}
	took := time.Since(start)
	n := 0
	for _, l := range strings.Split(trace.String(), "\n") {
		if strings.HasPrefix(l, "> ") {
			n++
		}
	}
	if got := len(rs.messages()); got != 5 || n < 25 {
		t.Fatalf("%d messages, %d commands:\n%s", got, n, trace.String())
	}
	if took > time.Duration(n)*fetchtest.DelayedAckBound {
		t.Errorf("%d commands took %v: the replies waited for delayed ACKs", n, took)
	}
	t.Logf("%d commands in %v", n, took)
}
