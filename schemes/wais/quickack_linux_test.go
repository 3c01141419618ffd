package wais

import (
	"bytes"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestDelayedAck: freeWAIS writes each answer in two pieces with Nagle's
// algorithm on, so its second piece waits for the client's acknowledgement
// of the first (issue 28: 23.7 s for a 2.1 MB document in 4096-byte
// chunks, 0.27 s with TCP_NODELAY forced on the server). The client
// acknowledges at once where it awaits an answer, so twenty retrievals
// take well under twenty delayed-ACK timers.
func TestDelayedAck(t *testing.T) {
	const rounds = 20
	doc := bigDoc(rounds*100 - 1)
	id := simDocID("d", len(doc))
	s := newSim(t, "db", map[string][]byte{id: doc})
	s.nagle = true
	u := mustParse(t, docURL(mustParse(t, "wais://"+s.Addr()+"/db"), "db", "TEXT", id))
	start := time.Now()
	_, body, err := fetchAll(t, &Handler{ChunkSize: 100}, u)
	took := time.Since(start)
	if err != nil || !bytes.Equal(body, doc) {
		t.Fatalf("fetch: %d bytes, %v", len(body), err)
	}
	if n := len(s.requests); n != rounds+1 {
		t.Fatalf("%d requests, want %d (an init and %d retrievals)", n, rounds+1, rounds)
	}
	if took > rounds*fetchtest.DelayedAckBound {
		t.Errorf("an init and %d retrievals took %v: the answers waited for delayed ACKs", rounds, took)
	}
	t.Logf("%d exchanges in %v", rounds+1, took)
}
