package prospero

import (
	"context"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestRTT checks the re-send timer against RFC 6298's arithmetic: the
// handler's Retransmit until a sample, SRTT + 4·RTTVAR after, never below
// the floor nor above maxRTO, doubled by each wait that runs out.
func TestRTT(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name       string
		retransmit time.Duration
		samples    []time.Duration
		backoffs   int
		want       time.Duration
	}{
		{"unmeasured", 4 * time.Second, nil, 0, 4 * time.Second},
		{"unmeasured, backed off", 4 * time.Second, nil, 2, 16 * time.Second},
		{"one sample", 4 * time.Second, []time.Duration{400 * ms}, 0, 1200 * ms}, // 400 + 4·200
		{"floor", 4 * time.Second, []time.Duration{ms}, 0, minRTO},               // 1 + 4·0.5 < 1000
		{"small Retransmit lowers the floor", 10 * ms, []time.Duration{ms}, 0, 10 * ms},
		// RTTVAR = (3·200 + |400-800|)/4 = 250, SRTT = (7·400 + 800)/8 = 450.
		{"two samples", 4 * time.Second, []time.Duration{400 * ms, 800 * ms}, 0, 1450 * ms},
		{"backed off after a sample", 4 * time.Second, []time.Duration{400 * ms}, 3, 9600 * ms},
		{"ceiling", 4 * time.Second, []time.Duration{20 * time.Second}, 1, maxRTO},
	} {
		l := newSession(context.Background(), nil, nil, tc.retransmit, time.Minute, 1)
		for _, r := range tc.samples {
			l.rtt.sample(r)
		}
		for range tc.backoffs {
			l.rtt.backoff()
		}
		if l.rtt.rto != tc.want {
			t.Errorf("%s: RTO %v, want %v", tc.name, l.rtt.rto, tc.want)
		}
	}
}

// TestLostWindowEnd: a lost please-ACK packet (the last of a window, 1 in
// 16) stalls the server, which sends nothing until it is ACKed; the client
// asks for it again soon after the rest of its window is in, not after
// the reference client's 4 s (issue 28: a 148-packet file took up to 68 s
// under 10% loss). The reply's own last packet is the last of its window
// too.
func TestLostWindowEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		s := newSimServerPipes(t, p, simReplies(t))
		s.drop = func(seq uint16, n int) bool { return n == 1 && (seq == 16 || seq == 59) }
		s.start()
		var trace strings.Builder
		start := time.Now()
		body, err := getTracedVia(t, pipeClient(p, &Handler{}), simURL(s, "/srv/prospero/pub/huge.txt"), &trace)
		took := time.Since(start)
		if err != nil {
			t.Fatalf("%v\n%s", err, trace.String())
		}
		if want := fixture(t, "pub/huge.txt"); string(body) != string(want) {
			t.Fatalf("got %d bytes, want %d", len(body), len(want))
		}
		for _, note := range []string{"packet 16, the last of its window, is missing; re-sending ACK 15 early", "packet 59, the last of its window, is missing; re-sending ACK 58 early"} {
			if !strings.Contains(trace.String(), note) {
				t.Errorf("trace lacks %q:\n%s", note, trace.String())
			}
		}
		// On the bubble's clock packets take no time: the round trip is 0,
		// the re-send wait minRTO, and the early wait an eighth of it,
		// twice; against the reference client's 4+4 s.
		if want := 2 * (minRTO / 8); took != want {
			t.Errorf("took %v with two lost packets, want %v", took, want)
		}
	})
}

// TestLostACKs: an ACK the network loses leaves the server waiting; the
// client re-sends it after the re-send wait its measured round trip gives
// (RFC 6298), not after the reference client's 4 s, doubling from there
// until a new sample (the next window's) sets it afresh.
func TestLostACKs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		s := newSimServerPipes(t, p, simReplies(t))
		s.dropAck = func(rcvd uint16, n int) bool { return rcvd == 16 && n == 1 || rcvd == 48 && n <= 2 }
		s.start()
		var trace strings.Builder
		start := time.Now()
		body, err := getTracedVia(t, pipeClient(p, &Handler{}), simURL(s, "/srv/prospero/pub/huge.txt"), &trace)
		took := time.Since(start)
		if err != nil {
			t.Fatalf("%v\n%s", err, trace.String())
		}
		if want := fixture(t, "pub/huge.txt"); string(body) != string(want) {
			t.Fatalf("got %d bytes, want %d", len(body), len(want))
		}
		if n := strings.Count(trace.String(), "re-sending ACK"); n != 3 {
			t.Errorf("%d ACKs re-sent, want 3:\n%s", n, trace.String())
		}
		// Three waits of the measured timer: minRTO, the round trip on the
		// bubble's clock being 0, then minRTO and twice it for the two losses
		// of ACK 48; against the reference client's 4+4+8 s.
		if want := 4 * minRTO; took != want {
			t.Errorf("took %v with three lost ACKs, want %v\n%s", took, want, trace.String())
		}
	})
}

// getTracedVia fetches raw through c (pipeClient's, say), tracing into
// w, and reads the body.
func getTracedVia(t *testing.T, c *fetch.Client, raw string, w *strings.Builder) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.Do(ctx, &fetch.Request{URL: mustParse(t, raw), Trace: fetch.NewTrace(w)})
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}
