package http

import (
	"bufio"
	"context"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// h1Pool keeps the connections of HTTP/1.1 requests by key, host:port for
// http and https://host:port for https, tagged by the TLS configuration
// (a plain and a TLS connection to one address, or two TLS connections
// made under different configurations, are never mixed): at most the
// request's cap per key (fetch.Request.MaxConnsPerHost, the
// Client's per-host cap), idle or in use, the idle ones for reuse until
// they have idled idleTime. A request over the cap is pipelined, when
// depth allows and it may be (see h1Conn), on the connection in use that
// carries the fewest requests, below depth; otherwise it waits, first
// come first served, for a connection to come back, to close, or to have
// room for one more. It is safe for concurrent use.
type h1Pool struct {
	depth    int // the requests one connection carries at once; below 2, one
	idleTime time.Duration

	mu    sync.Mutex
	hosts map[string]*h1Host
}

// h1Host is the state of one address.
type h1Host struct {
	open    int        // connections open: idle, in use, or being dialed
	idle    []*h1Conn  // most recently used last
	busy    []*h1Conn  // in use, when depth allows pipelining: its candidates
	waiters []h1Waiter // requests over the cap, oldest first
	noPipe  bool       // a pipelined request was dropped here: no more
}

// h1Waiter is a request waiting for a connection: ch gets one, or nil for a
// slot to dial in.
type h1Waiter struct {
	ch   chan *h1Conn
	pipe bool // it may be pipelined
}

// h1Conn is one connection, with the reader that outlives each exchange.
//
// Pipelining: the requests that take a connection write in turn, under
// wmu, and read their replies in the same order. The first reads at once;
// each later one waits for its turn, which it gets when the reply before
// its own has been read to its end, or loses when the connection closes
// first (its request is then made again on another connection: nothing of
// its reply came). A connection takes a pipelined request only once an
// exchange on it has ended with the connection kept (proven), and only
// GET and HEAD requests are pipelined.
type h1Conn struct {
	key    string
	conn   net.Conn
	lr     limitedConn
	br     *bufio.Reader
	since  time.Time   // when it went idle; zero while in use
	timer  *time.Timer // closes it after idling idleTime (see expire)
	closed bool        // guarded by pool.mu
	pool   *h1Pool

	wmu  sync.Mutex // orders the requests' writes with their turns
	wbuf []byte     // guarded by wmu

	// Guarded by pool.mu.
	inflight int       // requests that took it and have not ended
	reading  bool      // a request reads its reply now (or is about to)
	turns    []*h1Turn // requests written, waiting to read, in order
	proven   bool      // an exchange on it ended with it kept alive
	piped    bool      // a request was pipelined into the line read now
	bulk     bool      // the reply read now is long: no request joins (see readingBulk)

	check *idleCheck // looks whether anything came while it idled

	mu      sync.Mutex      // guards watched and unwatch against the tie's func
	watched <-chan struct{} // the Done of the context pc is tied to
	unwatch func() bool     // unties it
}

// h1Turn is a pipelined request's place in its connection's line of
// replies: ch gets true when the replies before its own have been read,
// false when the connection closed first.
type h1Turn struct {
	ch   chan bool
	gone bool // the request gave up waiting (guarded by pool.mu)
}

// readBufferSize is the size of a connection's read buffer. It holds a
// reply's head (a longer head is read line by line, see readHeadLines)
// and small bodies; a Read of a larger body with a buffer as big as this
// one goes past it, straight into the caller's buffer, and output files
// are spliced. 64 KiB buffers, 4 MiB for 64 connections, cost about 4%
// more CPU on 1000 small files (bench/small.sh) and a garbage collection.
const readBufferSize = 16 << 10

func (p *h1Pool) host(key string) *h1Host {
	hc := p.hosts[key]
	if hc == nil {
		if p.hosts == nil {
			p.hosts = make(map[string]*h1Host)
		}
		hc = new(h1Host)
		p.hosts[key] = hc
	}
	return hc
}

// get returns a connection of key for a request (reused true): an idle
// one, or, over the cap and when pipe allows, one in use with room for
// another request; or nil and a slot to dial one in: the caller then
// dials and calls newConn, or calls free when the dial fails. Over the cap
// of conns connections open to key (0: no cap) it waits under ctx for
// any of these. The request has the connection until it calls release or
// drop, or the connection closes.
func (p *h1Pool) get(ctx context.Context, key string, conns int, pipe bool, tr *fetch.Trace) (pc *h1Conn, reused bool, err error) {
	p.mu.Lock()
	hc := p.host(key)
	for n := len(hc.idle); n > 0; n = len(hc.idle) {
		pc = hc.idle[n-1]
		hc.idle[n-1] = nil
		hc.idle = hc.idle[:n-1]
		pc.since = time.Time{}
		p.take(hc, pc)
		p.mu.Unlock()
		if pc.check.pending() == waitNothing {
			return pc, true, nil
		}
		// Something came on the connection while it idled: bytes no
		// request asked for, which the next request would take for its
		// reply, or its end. net/http drops such a connection too.
		if tr != nil {
			tr.Notef("discarding the idle connection to %s: the server sent something unasked, or closed it", pc.conn.RemoteAddr())
		}
		pc.close()
		p.mu.Lock()
		hc = p.host(key)
	}
	pc = nil
	if conns <= 0 || hc.open < conns {
		hc.open++
		p.mu.Unlock()
		return nil, false, nil
	}
	if pipe {
		if pc = p.roomy(hc); pc != nil {
			pc.inflight++
			p.mu.Unlock()
			return pc, true, nil
		}
	}
	ch := make(chan *h1Conn, 1)
	hc.waiters = append(hc.waiters, h1Waiter{ch, pipe})
	p.mu.Unlock()
	select {
	case pc = <-ch:
		return pc, pc != nil, nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	for i, w := range hc.waiters {
		if w.ch == ch {
			hc.waiters = append(hc.waiters[:i], hc.waiters[i+1:]...)
			p.mu.Unlock()
			return nil, false, ctx.Err()
		}
	}
	p.mu.Unlock()
	// Handed a connection or a slot as the context ended: give it back.
	if pc = <-ch; pc != nil {
		pc.drop(true)
	} else {
		p.free(key)
	}
	return nil, false, ctx.Err()
}

// take makes pc, idle or new, the connection of one request. Under p.mu.
func (p *h1Pool) take(hc *h1Host, pc *h1Conn) {
	pc.inflight = 1
	if p.depth > 1 {
		hc.busy = append(hc.busy, pc)
	}
}

// roomy returns the connection of hc in use that may take one more
// request and carries the fewest, or nil. Under p.mu.
func (p *h1Pool) roomy(hc *h1Host) *h1Conn {
	if p.depth < 2 || hc.noPipe {
		return nil
	}
	var best *h1Conn
	for _, pc := range hc.busy {
		if pc.proven && !pc.closed && !pc.bulk && pc.inflight < p.depth && (best == nil || pc.inflight < best.inflight) {
			best = pc
		}
	}
	return best
}

// newConn makes the pool's connection of a conn dialed in a slot of key,
// taken by the request that dialed it.
func (p *h1Pool) newConn(key string, c net.Conn) *h1Conn {
	pc := &h1Conn{key: key, conn: c, pool: p}
	pc.lr.Conn = c
	pc.br = bufio.NewReaderSize(&pc.lr, readBufferSize)
	pc.check = newIdleCheck(c)
	p.mu.Lock()
	p.take(p.host(key), pc)
	p.mu.Unlock()
	return pc
}

// nextWaiter takes the oldest request waiting for a connection of hc,
// or returns nil when none waits.
func (hc *h1Host) nextWaiter() chan *h1Conn {
	if len(hc.waiters) == 0 {
		return nil
	}
	ch := hc.waiters[0].ch
	hc.waiters = hc.waiters[1:]
	return ch
}

// line places the request that took pc in the line of replies; it holds
// wmu, and writes its request next. turn is nil when it reads its reply
// at once, else what it waits for first; ok is false when pc has closed.
func (pc *h1Conn) line() (turn *h1Turn, ok bool) {
	p := pc.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if pc.closed {
		return nil, false
	}
	if !pc.reading {
		pc.reading = true
		return nil, true
	}
	turn = &h1Turn{ch: make(chan bool, 1)}
	pc.turns = append(pc.turns, turn)
	pc.piped = true
	return turn, true
}

// isPiped reports whether a request was pipelined into the line of
// replies pc reads now: the reply read now may be behind, or before,
// another's.
func (pc *h1Conn) isPiped() bool {
	p := pc.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	return pc.piped
}

// abandon gives up turn, whose request no longer waits: its reply, when
// its turn comes, closes the connection. It reports false when the turn
// came first.
func (pc *h1Conn) abandon(turn *h1Turn) bool {
	p := pc.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range pc.turns {
		if t == turn {
			t.gone = true
			return true
		}
	}
	return false
}

// release ends the exchange of pc's reader: the next request in line
// reads, or pc goes back to the pool when none is, provided reuse is set,
// nothing unasked for is buffered, and no cancellation touched it;
// otherwise pc is closed.
//
// When the line of replies just read had requests pipelined into it, and
// something unasked for follows its last reply (buffered, or waiting on
// the socket), the replies of the line cannot all be their requests': a
// reply came that no request asked for, or one too many, and each reply
// after it went to the request after its own. pc is closed, pipelining to
// its host stops, and release returns an error of Kind Protocol for the
// reply just read, whose end it is. Otherwise it returns nil.
func (pc *h1Conn) release(reuse bool) error {
	p := pc.pool
	p.mu.Lock()
	pc.inflight--
	if !reuse || pc.closed || isDone(pc.watched) {
		p.mu.Unlock()
		pc.close()
		return nil
	}
	if len(pc.turns) == 0 {
		piped := pc.piped
		pc.piped = false
		if pc.br.Buffered() != 0 || piped && pc.check.pending() == waitBytes {
			p.mu.Unlock()
			pc.close()
			if !piped {
				return nil // as net/http: the reply is whole; the rest is dropped
			}
			p.noPipeline(pc.key)
			return fetch.Errorf(fetch.Protocol, "more than the replies asked for came on a pipelined connection to %s: they cannot be matched to their requests (pipelining to it stops)", pc.key)
		}
	}
	pc.proven, pc.bulk = true, false
	pc.lr.arm, pc.lr.done = 0, nil
	hc := p.host(pc.key)
	if len(pc.turns) > 0 {
		turn := pc.turns[0]
		pc.turns[0] = nil
		pc.turns = pc.turns[1:]
		if turn.gone {
			p.mu.Unlock()
			pc.close()
			return nil
		}
		// Nothing of the next reply yet: acknowledge this one now, which
		// the server may be waiting for to send it: with Nagle's
		// algorithm on (nginx), it holds the next reply until what it
		// sent before is acknowledged, while this side, with no request
		// left to send, has nothing to carry the acknowledgement on
		// (see wire.QuickAck).
		ack := pc.br.Buffered() == 0
		turn.ch <- true // buffered: it waits for no one
		p.offer(hc, pc)
		if ack {
			wire.QuickAck(pc.conn)
		}
		return nil
	}
	pc.reading = false
	if pc.inflight > 0 {
		// Taken by a request that has yet to write: it reads at once.
		p.offer(hc, pc)
		return nil
	}
	p.rest(hc, pc)
	return nil
}

// rest gives pc, which no request has now, to the oldest request waiting
// for hc, or else to the idle list. It is called under p.mu, and unlocks
// it.
func (p *h1Pool) rest(hc *h1Host, pc *h1Conn) {
	p.untrack(hc, pc)
	if ch := hc.nextWaiter(); ch != nil {
		p.take(hc, pc)
		p.mu.Unlock()
		ch <- pc
		return
	}
	pc.since = time.Now()
	if pc.timer == nil {
		pc.timer = time.AfterFunc(p.idleTime, pc.expire)
	}
	hc.idle = append(hc.idle, pc)
	p.mu.Unlock()
}

// offer gives pc, which other requests keep and which has just had room
// made, to the oldest request waiting for hc when that one may be
// pipelined on it. It is called under p.mu, and unlocks it.
func (p *h1Pool) offer(hc *h1Host, pc *h1Conn) {
	if len(hc.waiters) == 0 || !hc.waiters[0].pipe || p.roomy(hc) != pc {
		p.mu.Unlock()
		return
	}
	pc.inflight++
	ch := hc.nextWaiter()
	p.mu.Unlock()
	ch <- pc
}

// untrack takes pc off hc's connections in use. Under p.mu.
func (p *h1Pool) untrack(hc *h1Host, pc *h1Conn) {
	for i, c := range hc.busy {
		if c == pc {
			hc.busy[i] = hc.busy[len(hc.busy)-1]
			hc.busy[len(hc.busy)-1] = nil
			hc.busy = hc.busy[:len(hc.busy)-1]
			return
		}
	}
}

// drop gives up pc for a request that took it and wrote nothing on it.
// When other requests have it, they keep it; otherwise it is closed, or
// with keep set, given on as after an exchange.
func (pc *h1Conn) drop(keep bool) {
	p := pc.pool
	p.mu.Lock()
	if pc.inflight > 1 || pc.reading {
		pc.inflight--
		p.offer(p.host(pc.key), pc)
		return
	}
	if keep && !pc.closed {
		pc.inflight--
		p.rest(p.host(pc.key), pc)
		return
	}
	p.mu.Unlock()
	pc.close()
}

// readingBulk records whether the reply pc's reader now reads has a body
// longer than bulkBody, behind which no request is pipelined: it would
// wait for all of it.
func (pc *h1Conn) readingBulk(length int64) {
	p := pc.pool
	p.mu.Lock()
	pc.bulk = length > bulkBody
	p.mu.Unlock()
}

// bulkBody is the longest reply body (by its Content-Length) a request is
// pipelined behind. A body of unknown length (chunked) is not held to it.
const bulkBody = 1 << 20

// expire closes pc if it has idled idleTime. The timer runs from pc's
// first put to its close, and is not reset as pc is taken and put back:
// each time it fires it is set again for when pc could have idled
// idleTime at the earliest, which saves a timer operation per request.
func (pc *h1Conn) expire() {
	p := pc.pool
	p.mu.Lock()
	if pc.closed {
		p.mu.Unlock()
		return
	}
	wait := p.idleTime // in use: put back no sooner than now
	if !pc.since.IsZero() {
		wait -= time.Since(pc.since)
	}
	if wait > 0 {
		pc.timer.Reset(wait)
		p.mu.Unlock()
		return
	}
	hc := p.hosts[pc.key]
	if hc == nil || !hc.remove(pc) {
		// Taken off the idle list by retire or closeIdle, which close it.
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	pc.close()
}

// remove takes pc off the idle list; it reports whether pc was there.
func (hc *h1Host) remove(pc *h1Conn) bool {
	for i, c := range hc.idle {
		if c == pc {
			hc.idle = append(hc.idle[:i], hc.idle[i+1:]...)
			return true
		}
	}
	return false
}

// close closes pc, which is not in the idle list, and frees its slot; the
// requests waiting for their turn on it lose it. It is safe to call more
// than once.
func (pc *h1Conn) close() {
	p := pc.pool
	p.mu.Lock()
	if pc.closed {
		p.mu.Unlock()
		return
	}
	pc.closed = true // after which expire sets the timer no more
	turns := pc.turns
	pc.turns = nil
	if hc := p.hosts[pc.key]; hc != nil {
		p.untrack(hc, pc)
	}
	p.mu.Unlock()
	pc.conn.Close()
	if pc.timer != nil {
		pc.timer.Stop()
	}
	for _, t := range turns {
		t.ch <- false
	}
	pc.mu.Lock()
	unwatch := pc.unwatch
	pc.unwatch = nil
	pc.mu.Unlock()
	if unwatch != nil {
		unwatch()
	}
	p.free(pc.key)
}

// noPipeline stops pipelining to key: a request pipelined there was
// dropped by the server.
func (p *h1Pool) noPipeline(key string) {
	p.mu.Lock()
	p.host(key).noPipe = true
	p.mu.Unlock()
}

// free gives up a slot of key, that of a connection closed or never
// dialed: to the first request waiting, which dials in it.
func (p *h1Pool) free(key string) {
	p.mu.Lock()
	hc := p.host(key)
	if ch := hc.nextWaiter(); ch != nil {
		p.mu.Unlock()
		ch <- nil
		return
	}
	hc.open--
	if hc.open <= 0 && len(hc.idle) == 0 && !hc.noPipe {
		delete(p.hosts, key)
	}
	p.mu.Unlock()
}

// retire closes the idle connections of key: one of them turned out closed
// by the server, and the others have idled as long or longer.
func (p *h1Pool) retire(key string) {
	p.mu.Lock()
	hc := p.hosts[key]
	if hc == nil {
		p.mu.Unlock()
		return
	}
	idle := hc.idle
	hc.idle = nil
	p.mu.Unlock()
	for _, pc := range idle {
		pc.close()
	}
}

// closeIdle closes every idle connection.
func (p *h1Pool) closeIdle() {
	p.mu.Lock()
	var idle []*h1Conn
	for _, hc := range p.hosts {
		idle = append(idle, hc.idle...)
		hc.idle = nil
	}
	p.mu.Unlock()
	for _, pc := range idle {
		pc.close()
	}
}

// closeIdleTo closes the idle connections to addr (host:port), plain and
// TLS, of every TLS configuration.
func (p *h1Pool) closeIdleTo(addr string) {
	p.mu.Lock()
	var idle []*h1Conn
	for key, hc := range p.hosts {
		k := strings.ToLower(key)
		if k == addr || k == "https://"+addr || strings.HasPrefix(k, "https://"+addr+" (") {
			idle = append(idle, hc.idle...)
			hc.idle = nil
		}
	}
	p.mu.Unlock()
	for _, pc := range idle {
		pc.close()
	}
}

// limitedConn is a connection whose reads stop at a limit: the bound on a
// reply's header, lifted for the body. It sets the read deadline of a
// wait as it begins, so that a wait the buffer spares has none to set.
type limitedConn struct {
	net.Conn
	n int64 // bytes left to read

	arm  time.Duration   // the next Read sets the read deadline this far ahead
	keep bool            // ... and so does every Read after it
	done <-chan struct{} // the exchange's cancellation
}

func (c *limitedConn) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errHeaderTooLong
	}
	if c.arm > 0 {
		c.Conn.SetReadDeadline(time.Now().Add(c.arm))
		// A cancel before the deadline was set would be undone by it.
		if isDone(c.done) {
			c.Conn.SetReadDeadline(wire.Past())
		}
		if !c.keep {
			c.arm = 0
		}
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.Conn.Read(p)
	c.n -= int64(n)
	return n, err
}
