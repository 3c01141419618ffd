package fetch

import (
	"context"
	"fmt"
	"sync"
)

// An Addresser is a Handler that can name the address ("host:port") a
// request will dial when its URL does not name it: a news: URL dials the
// configured news server. The Client counts such a request against that
// address's per-host limit. Address returns "" when it cannot tell.
type Addresser interface {
	Address(req *Request) string
}

// slots is the per-host semaphore of one address, with the number of
// requests holding or awaiting a slot; the entry is dropped when that
// falls to zero, so the table holds only hosts in use.
type slots struct {
	sem   chan struct{}
	users int
}

// address returns the address the request's transfer counts against: the
// handler's word when it is an Addresser, else the URL's host:port; ""
// for URLs without a host (file:).
func address(h Handler, r *Request) string {
	if a, ok := h.(Addresser); ok {
		if addr := a.Address(r); addr != "" {
			return addr
		}
	}
	if r.URL.Host == "" {
		return ""
	}
	return r.URL.HostPort()
}

// heldSlot is a slot a request holds, freed once by whichever comes first:
// the close of its Body, or a hop made from it taking a slot of its own.
type heldSlot struct{ release func() }

// hold acquires the request's slot and records it on r, first freeing the
// slot of the request r is a hop from: the transfer has moved on to r's
// host, and holding both could deadlock two transfers that redirect into
// each other's hosts.
func (c *Client) hold(ctx context.Context, h Handler, r *Request) (release func(), err error) {
	if r.Hop && r.slot != nil {
		r.slot.release()
	}
	r.slot = nil
	release, err = c.acquire(ctx, h, r)
	if err != nil {
		return nil, err
	}
	r.slot = &heldSlot{release: release}
	return release, nil
}

// acquire waits for a transfer slot to the request's address.
func (c *Client) acquire(ctx context.Context, h Handler, r *Request) (release func(), err error) {
	n := c.PerHost
	if n == 0 {
		n = 2
	}
	key := address(h, r)
	if n < 0 || key == "" {
		return func() {}, nil
	}
	c.mu.Lock()
	if c.hosts == nil {
		c.hosts = make(map[string]*slots)
	}
	s, ok := c.hosts[key]
	if !ok {
		s = &slots{sem: make(chan struct{}, n)}
		c.hosts[key] = s
	}
	s.users++
	c.mu.Unlock()
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		c.leave(key, s)
		return nil, Wrap(KindOf(context.Cause(ctx)), fmt.Errorf("waiting for a connection slot to %s: %w", key, context.Cause(ctx)))
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-s.sem
			c.leave(key, s)
		})
	}, nil
}

// leave drops one user of s, and s itself when it has none left.
func (c *Client) leave(key string, s *slots) {
	c.mu.Lock()
	s.users--
	if s.users == 0 {
		delete(c.hosts, key)
	}
	c.mu.Unlock()
}
