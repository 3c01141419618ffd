package prospero

import "time"

// rtt is the re-send timer of an ARDP session, computed as RFC 6298
// computes TCP's: from samples of the round trip, a smoothed round trip
// (SRTT) and its variation (RTTVAR) give the wait (RTO) before a request
// or an ACK is re-sent. Until the first sample the wait is the handler's
// Retransmit (the reference client's 4 s); each wait that runs out
// doubles it, up to maxRTO, until the next sample. Samples are taken only
// of what was sent once (Karn's algorithm): the time from a request to the
// first packet of its reply, and from an ACK the server asked for to the
// first packet of the next window.
type rtt struct {
	srtt, rttvar time.Duration
	rto          time.Duration
	floor        time.Duration // the least rto: minRTO, or a smaller Retransmit
	measured     bool
}

// sample takes one measured round trip r (RFC 6298 §2.2, §2.3).
func (e *rtt) sample(r time.Duration) {
	if r <= 0 {
		r = time.Microsecond
	}
	if !e.measured {
		e.srtt, e.rttvar, e.measured = r, r/2, true
	} else {
		d := e.srtt - r
		if d < 0 {
			d = -d
		}
		e.rttvar = (3*e.rttvar + d) / 4
		e.srtt = (7*e.srtt + r) / 8
	}
	e.rto = min(max(e.srtt+max(time.Millisecond, 4*e.rttvar), e.floor), maxRTO)
}

// backoff doubles the wait after one ran out (RFC 6298 §5.5).
func (e *rtt) backoff() {
	e.rto = min(2*e.rto, max(maxRTO, e.rto))
}

// early is how long to wait for the last packet of a window once all
// the others are in: a fraction of the re-send wait, since the packets of
// a window come together and their last is late only when it is lost.
func (e *rtt) early() time.Duration {
	return min(max(e.rto/8, earlyMin), earlyMax, e.rto)
}
