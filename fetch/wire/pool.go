package wire

import (
	"sync"
	"time"
)

// Pool keeps idle connections for reuse, by key: a server, and whatever
// else a connection is bound to (the user logged in, TLS). Get returns the
// most recently used connection of a key; a connection idle longer than
// IdleTime, or beyond MaxIdle for its key, is discarded. The zero Pool is
// ready to use, and a Pool is safe for concurrent use. Handlers that keep
// connections between requests (FTP control connections, NNTP sessions)
// use one.
type Pool[K comparable, C any] struct {
	// MaxIdle caps the idle connections kept per key. Zero means 2; a
	// negative value keeps none.
	MaxIdle int
	// IdleTime is how long a connection may wait idle before it is
	// discarded rather than reused (the server may have dropped it). Zero
	// means 30 seconds.
	IdleTime time.Duration
	// Discard ends a connection the Pool will not keep: one too many, one
	// idle too long, or every one at Close. It may talk to the server
	// (QUIT) and take its time: the Pool calls it in a goroutine of its
	// own, never under its lock, and Close waits for every such call. Nil
	// means the connection is just dropped.
	Discard func(C)

	mu     sync.Mutex
	idle   map[K][]idleConn[C]
	closed bool
	wg     sync.WaitGroup
}

type idleConn[C any] struct {
	c     C
	since time.Time
}

func (p *Pool[K, C]) maxIdle() int {
	if p.MaxIdle == 0 {
		return 2
	}
	return p.MaxIdle
}

func (p *Pool[K, C]) idleTime() time.Duration {
	if p.IdleTime > 0 {
		return p.IdleTime
	}
	return 30 * time.Second
}

// Get removes and returns the most recently used idle connection of key,
// discarding those that have idled too long. ok is false when there is
// none.
func (p *Pool[K, C]) Get(key K) (c C, ok bool) {
	var expired []C
	p.mu.Lock()
	list := p.idle[key]
	for len(list) > 0 && !ok {
		last := list[len(list)-1]
		list = list[:len(list)-1]
		if time.Since(last.since) <= p.idleTime() {
			c, ok = last.c, true
		} else {
			expired = append(expired, last.c)
		}
	}
	if len(list) == 0 {
		delete(p.idle, key)
	} else {
		p.idle[key] = list
	}
	p.discard(expired...) // under the lock, so that Close waits for them
	p.mu.Unlock()
	return c, ok
}

// Put offers c, idle from now, for reuse under key. It reports whether the
// Pool kept it; a connection it does not keep (MaxIdle is negative, or
// the Pool is closed) is discarded before Put returns. Keeping one too
// many for its key discards the oldest.
func (p *Pool[K, C]) Put(key K, c C) bool {
	p.mu.Lock()
	if p.closed || p.maxIdle() < 0 {
		p.mu.Unlock()
		// Discarded in the caller's goroutine: after Close has begun
		// waiting, the Pool starts no goroutine of its own.
		if p.Discard != nil {
			p.Discard(c)
		}
		return false
	}
	defer p.mu.Unlock()
	if p.idle == nil {
		p.idle = make(map[K][]idleConn[C])
	}
	list := append(p.idle[key], idleConn[C]{c, time.Now()})
	if over := len(list) - p.maxIdle(); over > 0 {
		for _, old := range list[:over] {
			p.discard(old.c)
		}
		list = append(list[:0], list[over:]...)
	}
	p.idle[key] = list
	return true
}

// Len returns the number of idle connections kept.
func (p *Pool[K, C]) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, list := range p.idle {
		n += len(list)
	}
	return n
}

// Close discards every idle connection and waits until every discard the
// Pool has started is done. Connections Put later are discarded, not
// kept; the Pool's owner stays usable, opening new connections.
func (p *Pool[K, C]) Close() error {
	p.mu.Lock()
	p.closed = true
	for _, list := range p.idle {
		for _, ic := range list {
			p.discard(ic.c)
		}
	}
	p.idle = nil
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

// discard starts Discard on each of cs in a goroutine Close waits for. The
// caller holds p.mu, so that no discard starts after Close has begun
// waiting.
func (p *Pool[K, C]) discard(cs ...C) {
	if p.Discard == nil {
		return
	}
	for _, c := range cs {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.Discard(c)
		}()
	}
}

// DiscardIdle discards the idle connections of every key for which match
// reports true, and returns how many it discarded.
func (p *Pool[K, C]) DiscardIdle(match func(K) bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for key, list := range p.idle {
		if !match(key) {
			continue
		}
		for _, ic := range list {
			p.discard(ic.c)
		}
		n += len(list)
		delete(p.idle, key)
	}
	return n
}
