package prospero

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// replayer is a UDP server on 127.0.0.1 that plays a transcript back
// datagram by datagram, as prospero.md §6 describes: at each recorded
// client datagram it waits for one from the client, maps the recorded
// connection id to the client's, and checks the request's command lines
// (or an ACK's received-through); then it sends the recorded server
// datagrams up to the next client entry with octets 1-2 set to the
// client's cid. A final recorded ACK is optional: the real clients send
// none after a one-packet reply.
type replayer struct {
	t    testing.TB
	tr   *transcript
	conn net.PacketConn
	// withhold, when set, says which datagrams of the first reply are not
	// sent (by index into the transcript), to drive the client's
	// retransmission; nil sends all.
	withhold func(i int) bool

	mu   sync.Mutex
	errs []string
	acks []uint16 // received-through of each ACK the client sent
	reqs int      // requests received (re-sends included)
	done chan struct{}
}

func newReplayer(t testing.TB, name string) *replayer {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return newReplayerOn(t, name, c)
}

// newReplayerPipes is newReplayer on UDP in memory, for a test in a
// testing/synctest bubble: dial it with a request from pipeRequest.
func newReplayerPipes(t testing.TB, p *fetchtest.Pipes, name string) *replayer {
	t.Helper()
	c, err := p.ListenPacket("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return newReplayerOn(t, name, c)
}

// newReplayerOn is newReplayer on c.
func newReplayerOn(t testing.TB, name string, c net.PacketConn) *replayer {
	t.Helper()
	r := &replayer{t: t, tr: loadTranscript(t, name), conn: c, done: make(chan struct{})}
	t.Cleanup(func() {
		c.Close()
		<-r.done
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, e := range r.errs {
			t.Errorf("replay %s: %s", name, e)
		}
	})
	return r
}

func (r *replayer) addr() string { return r.conn.LocalAddr().String() }

func (r *replayer) errorf(format string, args ...any) {
	r.mu.Lock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// start runs the replay in the background.
func (r *replayer) start() { go r.run() }

func (r *replayer) run() {
	defer close(r.done)
	cids := map[uint16]uint16{} // recorded → client's
	var peer net.Addr
	buf := make([]byte, maxDatagram)
	ds := r.tr.Datagrams
	firstReply := true
	for i := 0; i < len(ds); i++ {
		d := ds[i]
		if d.Dir == "s2c" {
			rh, _, _ := parseHeader(d.raw)
			if firstReply && r.withhold != nil && r.withhold(i) {
				continue
			}
			out := slices.Clone(d.raw)
			if len(out) >= 3 {
				binary.BigEndian.PutUint16(out[1:], cids[rh.CID])
			}
			if _, err := r.conn.WriteTo(out, peer); err != nil {
				return
			}
			continue
		}
		if i > 0 && ds[i-1].Dir == "s2c" {
			firstReply = false
		}
		rec, recData, _ := parseHeader(d.raw)
		last := i == len(ds)-1
		if last && rec.Seq == 0 && ds[i-1].Dir == "s2c" {
			if ph, _, _ := parseHeader(ds[i-1].raw); ph.Seq == 1 && (ph.Total == 1 || ph.Total == 0 && ph.Len < 5) {
				return // the optional ACK of a one-packet reply: the real clients send none
			}
		}
		wait := 10 * time.Second
		r.conn.SetReadDeadline(time.Now().Add(wait))
		n, from, err := r.conn.ReadFrom(buf)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				r.errorf("waiting for client datagram %d: %v", i, err)
			}
			return
		}
		peer = from
		h, data, err := parseHeader(buf[:n])
		if err != nil {
			r.errorf("client datagram %d: %v", i, err)
			return
		}
		cids[rec.CID] = h.CID
		switch {
		case h.Seq == 0:
			r.mu.Lock()
			r.acks = append(r.acks, h.Rcvd)
			r.mu.Unlock()
			if rec.Seq == 0 && h.Rcvd != rec.Rcvd {
				r.errorf("client ACK %d, recorded %d", h.Rcvd, rec.Rcvd)
			}
			if rec.Seq != 0 && !r.retransmitPoint(i) {
				r.errorf("client sent ACK %d where the recording has a request", h.Rcvd)
			}
		default:
			r.mu.Lock()
			r.reqs++
			r.mu.Unlock()
			if h.Seq != 1 || h.Total != 1 {
				r.errorf("client request packet %d of %d, want 1 of 1", h.Seq, h.Total)
			}
			if rec.Seq == 0 {
				r.errorf("client sent a request where the recording has ACK %d", rec.Rcvd)
				return
			}
			got, want := commands(r.t, string(data)), commands(r.t, string(recData))
			if !slices.Equal(got, want) {
				r.errorf("request commands\n got %q\nwant %q", got, want)
			}
		}
	}
}

// retransmitPoint reports whether client datagram i repeats an earlier
// request (the recorded client's retransmission), where a client may as
// well re-send an ACK.
func (r *replayer) retransmitPoint(i int) bool {
	for _, d := range r.tr.Datagrams[:i] {
		if d.Dir == "c2s" && d.Ardp.Seq != 0 && strings.EqualFold(d.Hex, r.tr.Datagrams[i].Hex) {
			return true
		}
	}
	return false
}

func (r *replayer) stats() (acks []uint16, reqs int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.acks), r.reqs
}
