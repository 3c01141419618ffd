package http

import (
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// TestH1PipelineDelayedAck: a server that writes each pipelined reply as
// it comes, with Nagle's algorithm on (as nginx does), holds the second
// reply until the first is acknowledged; the client, with nothing left to
// send, would acknowledge only when its delayed-ACK timer fires, 40 ms at
// least on Linux. wire.QuickAck sends the acknowledgement when the second
// request's turn comes, so rounds of two pipelined requests do not wait
// for that timer. The bound is half the timer's minimum a round: a client
// that waited for it in every round takes twice that at least.
func TestH1PipelineDelayedAck(t *testing.T) {
	s := &pipeServer{nagle: true}
	base := s.start(t)
	h := &Handler{Pipeline: 2}
	hc := capped(h, 1)
	if _, _, err := get(t, hc, &fetch.Request{URL: parse(t, base+"/proven")}); err != nil {
		t.Fatal(err)
	}
	const rounds = 20
	const delayedAck = 40 * time.Millisecond // TCP_DELACK_MIN
	start := time.Now()
	for range rounds {
		fetchMany(t, hc, base, 2)
	}
	took := time.Since(start)
	if s.peak < 2 {
		t.Fatalf("no request was pipelined (peak %d)", s.peak)
	}
	if took > rounds*delayedAck/2 {
		t.Errorf("%d rounds of 2 pipelined requests took %v: the replies waited for delayed ACKs", rounds, took)
	}
	t.Logf("%d rounds in %v", rounds, took)
}
