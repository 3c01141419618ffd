package telnet

import (
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestDelayedAck: a server that writes each answer in two pieces with
// Nagle's algorithm on holds the second until the first is acknowledged
// (issue 28, found on freeWAIS). The session acknowledges at once after
// each write, where an answer (an echo, a prompt) is awaited, so twenty
// lines and their answers take well under a delayed-ACK timer each.
func TestDelayedAck(t *testing.T) {
	const rounds = 20
	addr, _ := serve(t, func(p *peer) {
		p.c = fetchtest.NagleConn(p.c)
		p.sendf("> ")
		for {
			l, err := p.readLine()
			if err != nil {
				return
			}
			p.sendf("you said %s> ", strings.TrimSpace(l))
		}
	})
	s := open(t, &Handler{}, "telnet://"+addr, nil)
	if _, err := s.ExpectString(10*time.Second, "> "); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := range rounds {
		if _, err := s.Write([]byte("line " + itoa(i) + "\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ExpectString(10*time.Second, "you said line "+itoa(i)+"> "); err != nil {
			t.Fatal(err)
		}
	}
	took := time.Since(start)
	if took > rounds*fetchtest.DelayedAckBound {
		t.Errorf("%d lines took %v: the answers waited for delayed ACKs", rounds, took)
	}
	t.Logf("%d lines in %v", rounds, took)
}
