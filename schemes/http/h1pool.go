package http

import (
	"bufio"
	"context"
	"net"
	"sync"
	"time"
)

// h1Pool keeps the connections of plain HTTP/1.1 requests, by host:port: at
// most max per address, idle or in use, the idle ones for reuse until
// they have idled idleTime. A request over the cap waits, first come first
// served, for a connection to come back or to close. It is safe for
// concurrent use.
type h1Pool struct {
	max      int
	idleTime time.Duration

	mu    sync.Mutex
	hosts map[string]*h1Host
}

// h1Host is the state of one address.
type h1Host struct {
	open    int            // connections open: idle, in use, or being dialed
	idle    []*h1Conn      // most recently used last
	waiters []chan *h1Conn // requests over the cap, oldest first
}

// h1Conn is one connection, with the reader that outlives each exchange.
type h1Conn struct {
	key    string
	conn   net.Conn
	lr     limitedConn
	br     *bufio.Reader
	wbuf   []byte
	since  time.Time   // when it went idle; zero while in use
	timer  *time.Timer // closes it after idling idleTime (see expire)
	closed bool        // guarded by pool.mu
	pool   *h1Pool

	mu      sync.Mutex      // guards watched against the tie's func
	watched <-chan struct{} // the Done of the context pc is tied to
	unwatch func() bool     // unties it
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

// get returns an idle connection of key (reused true), or nil and a slot
// to dial one in: the caller then dials and calls add, or calls free when
// the dial fails. Over the cap it waits under ctx for either.
func (p *h1Pool) get(ctx context.Context, key string) (pc *h1Conn, reused bool, err error) {
	p.mu.Lock()
	hc := p.host(key)
	if n := len(hc.idle); n > 0 {
		pc = hc.idle[n-1]
		hc.idle[n-1] = nil
		hc.idle = hc.idle[:n-1]
		pc.since = time.Time{}
		p.mu.Unlock()
		return pc, true, nil
	}
	if hc.open < p.max {
		hc.open++
		p.mu.Unlock()
		return nil, false, nil
	}
	ch := make(chan *h1Conn, 1)
	hc.waiters = append(hc.waiters, ch)
	p.mu.Unlock()
	select {
	case pc = <-ch:
		return pc, pc != nil, nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	for i, w := range hc.waiters {
		if w == ch {
			hc.waiters = append(hc.waiters[:i], hc.waiters[i+1:]...)
			p.mu.Unlock()
			return nil, false, ctx.Err()
		}
	}
	p.mu.Unlock()
	// Handed a connection or a slot as the context ended: give it back.
	if pc = <-ch; pc != nil {
		p.put(pc)
	} else {
		p.free(key)
	}
	return nil, false, ctx.Err()
}

// newConn makes the pool's connection of a conn dialed in a slot of key.
func (p *h1Pool) newConn(key string, c net.Conn) *h1Conn {
	pc := &h1Conn{key: key, conn: c, pool: p}
	pc.lr.Conn = c
	pc.br = bufio.NewReaderSize(&pc.lr, readBufferSize)
	return pc
}

// nextWaiter takes the oldest request waiting for a connection of hc,
// or returns nil when none waits.
func (hc *h1Host) nextWaiter() chan *h1Conn {
	if len(hc.waiters) == 0 {
		return nil
	}
	ch := hc.waiters[0]
	hc.waiters = hc.waiters[1:]
	return ch
}

// put offers pc, its exchange over, for reuse: to the first request
// waiting for key, or else to the idle list.
func (p *h1Pool) put(pc *h1Conn) {
	p.mu.Lock()
	hc := p.host(pc.key)
	if ch := hc.nextWaiter(); ch != nil {
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

// close closes pc, which is not in the idle list, and frees its slot.
func (pc *h1Conn) close() {
	pc.conn.Close()
	if pc.timer != nil {
		pc.pool.mu.Lock()
		pc.closed = true // after which expire sets the timer no more
		pc.pool.mu.Unlock()
		pc.timer.Stop()
	}
	if pc.unwatch != nil {
		pc.unwatch()
	}
	pc.pool.free(pc.key)
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
	if hc.open <= 0 && len(hc.idle) == 0 {
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
			c.Conn.SetReadDeadline(aLongTimeAgo)
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
