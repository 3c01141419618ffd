package prospero

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// simServer is an ARDP v0 server on 127.0.0.1 that answers requests with
// replies looked up by their command lines (see commands), speaking ARDP as
// the recorded dirsrv does: 1250 data bytes a packet, windows of 16 with a
// please-ACK on the last packet of each, 7-octet headers with total 0 in
// the first window and 9-octet ones with the total after the first ACK; a
// repeated request re-sends the window from the last ACK. Its faults drop,
// reorder, delay or withhold packets.
type simServer struct {
	t       testing.TB
	conn    net.PacketConn
	replies map[string][]byte

	// drop, when set, says whether to drop the n-th transmission (from 1)
	// of packet seq.
	drop func(seq uint16, n int) bool
	// dropAck, when set, says whether to lose the n-th ACK (from 1) the
	// client sends with received-through rcvd, as if the network had.
	dropAck func(rcvd uint16, n int) bool
	// reorder sends each burst of packets in pairs swapped (2 1 4 3 ...).
	reorder bool
	// silent answers nothing at all.
	silent bool
	// waitNotice, when non-zero, precedes each reply with an unsequenced
	// packet asking for that many more seconds.
	waitNotice uint16
	// swapCID writes the cid byte-swapped into packets sent after an ACK,
	// as some little-endian dirsrv builds do.
	swapCID bool

	mu       sync.Mutex
	requests []string // the command lines of each new request
	resends  int      // repeated requests
	acks     []uint16
	ackCount map[uint16]int // ACKs received (lost ones too) by received-through
	sent     map[uint16]int
	state    map[simKey]*simReply
	done     chan struct{}
	started  atomic.Bool
	// completed receives the cid of each reply whose final ACK arrived.
	completed chan uint16
}

// simKey names one reply: the client's address and connection id.
type simKey struct {
	addr string
	cid  uint16
}

type simReply struct {
	packets [][]byte // data of packets 1..n
	acked   int      // highest received-through from the client
}

func newSimServer(t testing.TB, replies map[string][]byte) *simServer {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return newSimServerOn(t, c, replies)
}

// newSimServerPipes is newSimServer on UDP in memory, for a test in a
// testing/synctest bubble, whose re-sends and timeouts then run on the
// bubble's clock: fetch from it with pipeClient(p, h).
func newSimServerPipes(t testing.TB, p *fetchtest.Pipes, replies map[string][]byte) *simServer {
	t.Helper()
	c, err := p.ListenPacket("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return newSimServerOn(t, c, replies)
}

// pipeClient returns a Client whose connections are made on p, with h as
// its prospero handler.
func pipeClient(p *fetchtest.Pipes, h *Handler) *fetch.Client {
	c := &fetch.Client{DialContext: p.DialContext}
	c.Register("prospero", h)
	return c
}

// pipeRequest returns req as a Client whose connections are made on p
// hands it to a handler, for tests that call the handler's parts (dial,
// ask) themselves: their dials then go to p.
func pipeRequest(t testing.TB, p *fetchtest.Pipes, req *fetch.Request) *fetch.Request {
	t.Helper()
	var got *fetch.Request
	c := &fetch.Client{DialContext: p.DialContext}
	c.Register("prospero", fetch.HandlerFunc(func(_ context.Context, r *fetch.Request) (*fetch.Resource, error) {
		got = r
		return nil, errPrepared
	}))
	if _, err := c.Do(context.Background(), req); !errors.Is(err, errPrepared) {
		t.Fatalf("preparing %s: %v", req.URL.Redacted(), err)
	}
	return got
}

// errPrepared ends pipeRequest's fetch once the request is prepared.
var errPrepared = errors.New("prepared")

// newSimServerOn is newSimServer on c.
func newSimServerOn(t testing.TB, c net.PacketConn, replies map[string][]byte) *simServer {
	s := &simServer{t: t, conn: c, replies: replies, sent: map[uint16]int{}, ackCount: map[uint16]int{}, state: map[simKey]*simReply{}, done: make(chan struct{}), completed: make(chan uint16, 64)}
	t.Cleanup(func() {
		c.Close()
		if !s.started.Load() {
			return
		}
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			t.Error("sim: the server did not stop within 10 s of its socket closing")
		}
	})
	return s
}

func (s *simServer) addr() string { return s.conn.LocalAddr().String() }

func (s *simServer) start() {
	s.started.Store(true)
	go s.run()
}

func (s *simServer) run() {
	defer close(s.done)
	buf := make([]byte, maxDatagram)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if s.silent {
			continue
		}
		h, data, err := parseHeader(buf[:n])
		if err != nil {
			s.t.Errorf("sim: client packet: %v", err)
			continue
		}
		s.mu.Lock()
		key := simKey{from.String(), h.CID}
		st := s.state[key]
		if h.Seq == 0 {
			s.ackCount[h.Rcvd]++
			if s.dropAck != nil && s.dropAck(h.Rcvd, s.ackCount[h.Rcvd]) {
				s.mu.Unlock()
				continue
			}
			s.acks = append(s.acks, h.Rcvd)
			if st == nil {
				s.mu.Unlock()
				continue
			}
			st.acked = max(st.acked, int(h.Rcvd))
			s.mu.Unlock()
			if int(h.Rcvd) == len(st.packets) {
				select {
				case s.completed <- h.CID:
				default:
				}
			}
			if st.acked < len(st.packets) {
				s.window(from, h.CID, st, true)
			}
			continue
		}
		if st != nil {
			s.resends++
			s.mu.Unlock()
			s.window(from, h.CID, st, st.acked > 0)
			continue
		}
		cmd := strings.Join(commands(s.t, string(data)), "\n")
		s.requests = append(s.requests, cmd)
		reply, ok := s.replies[cmd]
		if !ok {
			reply = []byte("ERROR Unknown message: " + strings.ReplaceAll(cmd, "\n", " ") + "\n")
		}
		st = &simReply{}
		for len(reply) > 1250 {
			st.packets = append(st.packets, reply[:1250])
			reply = reply[1250:]
		}
		st.packets = append(st.packets, reply)
		s.state[key] = st
		s.mu.Unlock()
		if s.waitNotice != 0 {
			w := appendHeader(nil, header{Len: 11, CID: h.CID, Seq: 0, HasRcvd: true, Rcvd: 1, Wait: s.waitNotice, HasWait: true})
			s.conn.WriteTo(w, from)
		}
		s.window(from, h.CID, st, false)
	}
}

// window sends the packets after the client's last ACK, at most 16.
func (s *simServer) window(to net.Addr, cid uint16, st *simReply, afterAck bool) {
	total := len(st.packets)
	first := st.acked + 1
	last := min(st.acked+window, total)
	var burst [][]byte
	for seq := first; seq <= last; seq++ {
		h := header{CID: cid, Seq: uint16(seq)}
		switch {
		case total == 1 && !afterAck:
			h.Len = 3
		case afterAck || seq == total:
			h.Len, h.Total, h.Rcvd, h.HasRcvd = 9, uint16(total), 1, true
		default:
			h.Len = 7
		}
		if seq == last && seq < total {
			h.Len, h.Rcvd, h.HasRcvd, h.HasWait, h.Flags = 12, 1, true, true, flagAckPlease
		}
		if afterAck && s.swapCID {
			h.CID = swap16(cid)
		}
		s.mu.Lock()
		s.sent[uint16(seq)]++
		n := s.sent[uint16(seq)]
		s.mu.Unlock()
		if s.drop != nil && s.drop(uint16(seq), n) {
			continue
		}
		burst = append(burst, append(appendHeader(nil, h), st.packets[seq-1]...))
	}
	if s.reorder {
		for i := 0; i+1 < len(burst); i += 2 {
			burst[i], burst[i+1] = burst[i+1], burst[i]
		}
	}
	for _, p := range burst {
		s.conn.WriteTo(p, to)
	}
}

func (s *simServer) log() (requests []string, resends int, acks []uint16) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...), s.resends, append([]uint16(nil), s.acks...)
}

// simReplies is the served tree of the recordings, /srv/prospero, as
// replies keyed by command lines: the recorded replies where a transcript
// has one, and replies in the same form for the objects no transcript
// asked about.
func simReplies(t testing.TB) map[string][]byte {
	t.Helper()
	r := map[string][]byte{}
	add := func(name string) {
		tr := loadTranscript(t, name)
		key := strings.Join(commands(t, tr.Exchanges[0].RequestText), "\n")
		r[key] = replyPayload(t, tr)
	}
	for _, name := range []string{
		"goi-all", "goi-all-directory", "failure-not-found", "failure-not-authorized",
		"contents-small", "contents-big", "contents-huge", "contents-none-found",
		"list", "failure-not-a-directory", "failure-list-of-file",
	} {
		add(name)
	}
	file := func(path string, size int) string {
		return "ATTRIBUTE OBJECT INTRINSIC SIZE SEQUENCE " + strconv.Itoa(size) + "' bytes'\n" +
			"ATTRIBUTE OBJECT INTRINSIC NATIVE-OWNER SEQUENCE root\n" +
			"ATTRIBUTE OBJECT INTRINSIC NATIVE-GROUP SEQUENCE root\n" +
			"ATTRIBUTE OBJECT INTRINSIC LAST-MODIFIED SEQUENCE 20261122051120Z\n" +
			"ATTRIBUTE OBJECT INTRINSIC UNIX-MODES SEQUENCE -rw-r--r--\n" +
			"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE PROSPERO-CONTENTS '' '' '' ''\n" +
			"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE LOCAL '' '' '' ''\n"
	}
	dir := "ATTRIBUTE OBJECT INTRINSIC SIZE SEQUENCE 4096' bytes'\n" +
		"ATTRIBUTE OBJECT INTRINSIC NATIVE-OWNER SEQUENCE root\n" +
		"ATTRIBUTE OBJECT INTRINSIC NATIVE-GROUP SEQUENCE root\n" +
		"ATTRIBUTE OBJECT INTRINSIC LAST-MODIFIED SEQUENCE 20261122051407Z\n" +
		"ATTRIBUTE OBJECT INTRINSIC UNIX-MODES SEQUENCE drwxr-xr-x\n"
	goi := func(path string) string { return "GET-OBJECT-INFO #ALL ASCII " + path + " 0" }
	r[goi("/srv/prospero/pub/big.txt")] = []byte(file("big.txt", 10800))
	r[goi("/srv/prospero/pub/huge.txt")] = []byte(file("huge.txt", 73200))
	r[goi("/srv/prospero/pub/docs/one.txt")] = []byte(file("one.txt", 18))
	r[goi("/srv/prospero")] = []byte(dir)
	r[goi("/srv/prospero/pub/docs")] = []byte(dir)
	// The real vls's reply for pub/docs, VERSION line and all.
	vls := loadTranscript(t, "vls")
	r["DIRECTORY ASCII /srv/prospero/pub/docs\nLIST '' COMPONENTS"] = []byte(vls.Exchanges[1].ResponseText)
	r["GET-OBJECT-INFO CONTENTS ASCII /srv/prospero/pub/docs/one.txt"] = append([]byte("ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA "),
		quoteData(fixture(t, "pub/docs/one.txt"))...)
	return r
}

// quoteData quotes a file as dirsrv does: verbatim up to the first byte
// that needs quoting, then one quoted part to the end, then LF.
func quoteData(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\'' {
		i++
	}
	out := append([]byte(nil), b[:i]...)
	if i < len(b) {
		out = append(out, '\'')
		out = append(out, strings.ReplaceAll(string(b[i:]), "'", "''")...)
		out = append(out, '\'')
	}
	return append(out, '\n')
}
