package prospero

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// ARDP limits.
const (
	// window is the server's window: it sends at most 16 packets beyond
	// the client's last ACK.
	window = 16
	// maxAhead bounds the out-of-order packets kept: two windows, since an
	// ACK may run ahead of what the reader has consumed.
	maxAhead = 2 * window
	// maxDatagram is the largest UDP payload.
	maxDatagram = 65535
	// maxWaitNotice caps the time the server's wait notices may add to
	// one reply.
	maxWaitNotice = 5 * time.Minute
	// defaultRetransmit is the reference client's first wait before it
	// re-sends: 4 seconds, doubled after each try. It is the wait only
	// until a round trip has been measured (see rtt).
	defaultRetransmit = 4 * time.Second
	// minRTO and maxRTO bound the re-send wait that the measured round
	// trip gives: RFC 6298's floor of 1 s (a quarter of the reference
	// client's first wait; on a LAN a lost packet costs that, where the
	// window's last packet, the common case, is asked for sooner, see
	// rtt.early) and its ceiling.
	minRTO = time.Second
	maxRTO = 60 * time.Second
	// earlyMin and earlyMax bound how long the client waits for a
	// window's last packet once every other packet of the window is in,
	// before it re-sends its ACK (see message.fill).
	earlyMin = 5 * time.Millisecond
	earlyMax = 500 * time.Millisecond
)

// session is the UDP socket of one fetch, shared by its successive requests
// (each with its own connection id). It is tied to the fetch's context: once
// the context is done, every wait ends at once with the context's cause.
type session struct {
	conn       net.Conn // connected UDP socket
	trace      *fetch.Trace
	retransmit time.Duration // first wait before re-sending
	rtt        rtt           // the round trip, measured over the session's requests
	idle       time.Duration // give up after this long without a packet
	cause      atomic.Pointer[error]
	stop       func() bool
	buf        []byte
	nextCID    uint16
	closeOnce  sync.Once
}

// newSession wraps a connected UDP socket and ties it to ctx until close.
func newSession(ctx context.Context, conn net.Conn, trace *fetch.Trace, retransmit, idle time.Duration, cid uint16) *session {
	if retransmit <= 0 {
		retransmit = defaultRetransmit
	}
	if cid == 0 {
		cid = 1
	}
	l := &session{conn: conn, trace: trace, retransmit: retransmit, idle: idle, nextCID: cid}
	l.rtt.rto = retransmit
	l.rtt.floor = min(minRTO, retransmit)
	l.stop = context.AfterFunc(ctx, func() {
		err := context.Cause(ctx)
		l.cause.Store(&err)
		conn.SetDeadline(wire.Past())
	})
	return l
}

// close unties the session from its context and closes the socket. It is
// safe to call more than once.
func (l *session) close() error {
	l.closeOnce.Do(func() {
		l.stop()
		l.conn.Close()
	})
	return nil
}

// dead returns the context's cause as an *fetch.Error once it is done.
func (l *session) dead() error {
	if p := l.cause.Load(); p != nil {
		return fetch.Wrap(fetch.KindOf(*p), *p)
	}
	return nil
}

// send writes one datagram.
func (l *session) send(pkt []byte) error {
	if err := l.dead(); err != nil {
		return err
	}
	l.conn.SetWriteDeadline(time.Now().Add(l.idle))
	if err := l.dead(); err != nil {
		return err
	}
	if _, err := l.conn.Write(pkt); err != nil {
		return l.ioError(err)
	}
	return nil
}

// recv reads one datagram, waiting until at most t. It returns timedOut
// when t passed first.
func (l *session) recv(t time.Time) (pkt []byte, timedOut bool, err error) {
	if l.buf == nil {
		l.buf = make([]byte, maxDatagram)
	}
	if err := l.dead(); err != nil {
		return nil, false, err
	}
	l.conn.SetReadDeadline(t)
	if err := l.dead(); err != nil {
		return nil, false, err
	}
	n, err := l.conn.Read(l.buf)
	if err != nil {
		if d := l.dead(); d != nil {
			return nil, false, d
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, true, nil
		}
		return nil, false, l.ioError(err)
	}
	return l.buf[:n], false, nil
}

// ioError classifies a socket error: an ICMP port-unreachable shows as a
// refused connection.
func (l *session) ioError(err error) error {
	if d := l.dead(); d != nil {
		return d
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fetch.Errorf(fetch.Connect, "nothing answers on UDP %s: %w", l.conn.RemoteAddr(), err)
	}
	return fetch.Classify(err)
}

// request sends payload as a one-packet ARDP request under a fresh
// connection id and returns the reply as a stream. The payload must fit in
// one datagram.
func (l *session) request(payload []byte) (*message, error) {
	cid := l.nextCID
	l.nextCID++
	if l.nextCID == 0 {
		l.nextCID = 1
	}
	pkt := appendHeader(make([]byte, 0, 9+len(payload)), requestHeader(cid))
	pkt = append(pkt, payload...)
	if len(pkt) > maxDatagram-28 {
		return nil, fetch.Errorf(fetch.Usage, "request of %d bytes does not fit in one ARDP packet", len(payload))
	}
	m := &message{l: l, cid: cid, req: pkt, next: 1, pending: make(map[uint16][]byte)}
	l.trace.Notef("ARDP request, connection id %d, %d bytes", cid, len(payload))
	if err := l.send(pkt); err != nil {
		return nil, err
	}
	m.sentAt = time.Now() // the reply's first packet times it
	return m, nil
}

// message is one ARDP reply being received: packets are reassembled by
// sequence number and delivered in order as a stream; the server's
// please-ACK packets are acknowledged at once, the complete reply once. An
// unanswered wait (the session's measured re-send timer, see rtt) re-sends
// the request (nothing received yet) or the last ACK, the wait doubling
// each time, until the session's idle timeout passes without a packet.
// When every packet of a window is in but its last, which carries the
// server's please-ACK and without which the server sends nothing more, the
// ACK is re-sent after a fraction of that wait (rtt.early).
type message struct {
	l       *session
	cid     uint16
	req     []byte            // the request packet, for re-sending
	next    uint16            // the next sequence number to deliver
	total   uint16            // packets in the reply; 0 until known
	pending map[uint16][]byte // received out of order, keyed by seq
	cur     []byte            // in-order data not yet read
	got     int               // packets received
	waited  time.Duration     // extra time granted by wait notices
	by      time.Time         // when the whole reply must be in (plus waited); zero: no bound
	err     error             // sticky: io.EOF once complete
	acked   uint16            // the received-through of the last ACK sent
	sentAt  time.Time         // when the request or ACK being timed went (once); zero: none
	lastNew time.Time         // when the last new packet came
	early   uint16            // the window end whose last packet was asked for early
}

// bound requires the whole reply within d from now, plus what wait notices
// grant, so that packets dripped one at a time cannot make it last for
// ever. A streamed body is not bounded; a reply read whole is.
func (m *message) bound(d time.Duration) {
	m.by = time.Now().Add(d)
}

// Read delivers the reply's data in order.
func (m *message) Read(p []byte) (int, error) {
	for len(m.cur) == 0 {
		if m.err != nil {
			return 0, m.err
		}
		m.err = m.fill()
	}
	n := copy(p, m.cur)
	m.cur = m.cur[n:]
	return n, nil
}

// contiguous is the highest sequence number up to which every packet has
// arrived.
func (m *message) contiguous() uint16 {
	c := m.next - 1
	for {
		if _, ok := m.pending[c+1]; !ok || (m.total != 0 && c >= m.total) {
			return c
		}
		c++
	}
}

// lastMissing reports whether every packet of the window the server sends
// now (the 16 after the last ACK, or fewer at the reply's end) has come
// but its last, and returns that last packet's number.
func (m *message) lastMissing() (uint16, bool) {
	end := int(m.acked) + window
	if m.total != 0 {
		end = min(end, int(m.total))
	}
	c := int(m.contiguous())
	return uint16(end), c == end-1 && c > int(m.acked)
}

func (m *message) ack(rcvd uint16, why string) error {
	m.l.trace.Notef("ARDP ACK %d (%s)", rcvd, why)
	m.acked = max(m.acked, rcvd)
	return m.l.send(appendHeader(nil, ackHeader(m.cid, rcvd)))
}

// fill makes the next in-order packet's data current, or returns io.EOF
// when the reply is complete.
func (m *message) fill() error {
	l := m.l
	now := time.Now()
	giveUp := now.Add(l.idle)
	resend := now.Add(l.rtt.rto)
	tries := 0
	for {
		if m.total != 0 && m.next > m.total {
			if m.total > 1 {
				// The real clients do not ACK a one-packet reply; a longer one
				// gets a final ACK so that the server can forget it.
				// The reply is whole: a failure to say so costs the server
				// only some memory, and the reader nothing.
				if err := m.ack(m.total, "complete"); err != nil {
					l.trace.Notef("ARDP: final ACK not sent: %v", err)
				}
			}
			return io.EOF
		}
		if d, ok := m.pending[m.next]; ok {
			delete(m.pending, m.next)
			m.next++
			m.cur = d
			if len(d) > 0 {
				return nil
			}
			continue
		}
		limit := giveUp
		if !m.by.IsZero() {
			limit = earlier(giveUp, m.by.Add(m.waited))
		}
		wake := earlier(resend, limit)
		last, early := m.lastMissing()
		if early = early && m.early != last; early {
			wake = earlier(wake, m.lastNew.Add(l.rtt.early()))
		}
		pkt, timedOut, err := l.recv(wake)
		if err != nil {
			return err
		}
		now = time.Now()
		if timedOut {
			if !now.Before(limit) {
				if now.Before(giveUp) {
					return fetch.Errorf(fetch.Timeout, "the reply from UDP %s did not finish within %s (%d packets came)", l.conn.RemoteAddr(), l.idle+m.waited, m.got)
				}
				return m.silence(tries)
			}
			m.sentAt = time.Time{} // what is re-sent is not timed (Karn)
			if early && now.Before(resend) {
				// The window is in but its last packet: ask for it now
				// rather than after the whole re-send wait.
				m.early = last
				c := m.contiguous()
				l.trace.Notef("ARDP: packet %d, the last of its window, is missing; re-sending ACK %d early", last, c)
				if err := m.ack(c, "re-sent early"); err != nil {
					return err
				}
				resend = now.Add(l.rtt.rto)
				continue
			}
			tries++
			if c := m.contiguous(); c > 0 {
				l.trace.Notef("ARDP: no packet for %s; re-sending ACK %d", l.rtt.rto, c)
				err = m.ack(c, "re-sent")
			} else {
				l.trace.Notef("ARDP: no reply for %s; re-sending the request (connection id %d)", l.rtt.rto, m.cid)
				err = l.send(m.req)
			}
			if err != nil {
				return err
			}
			l.rtt.backoff()
			resend = now.Add(l.rtt.rto)
			continue
		}
		h, data, err := parseHeader(pkt)
		if err != nil {
			return fetch.Errorf(fetch.Protocol, "%w", err)
		}
		if h.CID != m.cid && h.CID != swap16(m.cid) {
			continue // a late packet of an earlier request
		}
		if h.Seq == 0 {
			if err := m.control(h, &giveUp, &resend); err != nil {
				return err
			}
			continue
		}
		if h.Total != 0 {
			if h.Seq > h.Total {
				return fetch.Errorf(fetch.Protocol, "ARDP packet %d of a %d-packet reply", h.Seq, h.Total)
			}
			m.total = h.Total
		}
		if h.Seq >= m.next && h.Seq-m.next < maxAhead {
			if _, dup := m.pending[h.Seq]; !dup {
				m.pending[h.Seq] = append([]byte(nil), data...)
				m.got++
				if !m.sentAt.IsZero() {
					l.rtt.sample(now.Sub(m.sentAt))
					m.sentAt = time.Time{}
				}
				// A new packet is progress: the server is alive.
				m.lastNew = now
				giveUp = now.Add(l.idle)
				resend = now.Add(l.rtt.rto)
			}
		}
		if h.Flags&flagAckPlease != 0 {
			c := m.contiguous()
			if err := m.ack(c, "asked"); err != nil {
				return err
			}
			if m.total == 0 || c < m.total {
				m.sentAt = now // the next window's first packet times it
			}
		}
	}
}

// control handles an unsequenced packet from the server: a wait notice
// extends the deadlines; a cancel is a refusal.
func (m *message) control(h header, giveUp, resend *time.Time) error {
	if h.Option == 1 {
		return fetch.Errorf(fetch.Protocol, "the server cancelled the request (ARDP option 1)")
	}
	if h.HasWait && h.Wait > 0 {
		d := min(time.Duration(h.Wait)*time.Second, maxWaitNotice-m.waited)
		if d <= 0 {
			return nil // the server has had all the extra time it may have
		}
		m.waited += d
		m.l.trace.Notef("ARDP: the server asks for %s more", d)
		now := time.Now()
		*giveUp = now.Add(max(d, m.l.idle))
		*resend = now.Add(d + m.l.rtt.rto)
	}
	return nil
}

// silence is the error for a reply that stopped coming.
func (m *message) silence(tries int) error {
	if m.got == 0 {
		return fetch.Errorf(fetch.Timeout, "no reply from UDP %s within %s (request sent %d times)", m.l.conn.RemoteAddr(), m.l.idle, tries+1)
	}
	total := "?"
	if m.total != 0 {
		total = fmt.Sprint(m.total)
	}
	return fetch.Errorf(fetch.Timeout, "the reply from UDP %s stopped after packet %d of %s; nothing came for %s", m.l.conn.RemoteAddr(), m.next-1, total, m.l.idle)
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
