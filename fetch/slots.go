package fetch

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"

	"github.com/rfc1738/fetch/url"
)

// An Addresser is a Handler that can name the address ("host:port") a
// request will dial when its URL does not name it: a news: URL dials the
// configured news server. The Client counts such a request against that
// address's per-host limit. Address returns "" when it cannot tell.
type Addresser interface {
	Address(req *Request) string
}

// defaultPerHost is the per-host cap of a Client whose PerHost is zero,
// and of a request made without a Client.
const defaultPerHost = 2

// perHostCap returns the connections' worth of transfers a PerHost of n
// lets run to one host: n, defaultPerHost when n is zero, and 0 (no cap)
// when n is negative.
func perHostCap(n int) int {
	switch {
	case n < 0:
		return 0
	case n == 0:
		return defaultPerHost
	}
	return n
}

// perHost is the Client's per-host cap in connections: see PerHost. Zero
// means none.
func (c *Client) perHost() int { return perHostCap(c.PerHost) }

// transferCap returns the transfers that a cap of conns connections to
// one host lets run at once to URLs like u, whose handler is h (nil when
// there is none): conns times h's Pipelining (see Pipeliner). Zero means
// no cap. The Client's slots and a Batch's host queues both count by it.
func transferCap(conns int, h Handler, u *url.URL) int {
	if h == nil {
		return conns
	}
	return conns * perConn(h, u)
}

// slots is the per-host semaphore of one address, with the number of
// requests holding or awaiting a slot; the entry is dropped when that
// falls to zero, so the table holds only hosts in use.
type slots struct {
	sem   chan struct{}
	users int
}

// slotKey is the address a transfer counts against: a URL's host and
// effective port, or what an Addresser names, split the same way.
type slotKey struct {
	host string
	port int // -1 for an Addresser's address that is not host:port
}

func (k slotKey) String() string {
	if k.port < 0 {
		return k.host
	}
	return net.JoinHostPort(k.host, strconv.Itoa(k.port))
}

// address returns the address the request's transfer counts against: the
// handler's word when it is an Addresser, else the URL's host:port; ok is
// false for URLs without a host (file:).
func address(h Handler, r *Request) (key slotKey, ok bool) {
	if a, ok := h.(Addresser); ok {
		if addr := a.Address(r); addr != "" {
			host, port, err := net.SplitHostPort(addr)
			if n, perr := strconv.Atoi(port); err == nil && perr == nil {
				return slotKey{host, n}, true
			}
			return slotKey{addr, -1}, true
		}
	}
	if r.URL.Host == "" {
		return slotKey{}, false
	}
	return slotKey{r.URL.Host, r.URL.EffectivePort()}, true
}

// heldSlot is a slot a request holds, freed once by whichever comes first:
// the close of its Body, or a hop made from it taking a slot of its own.
// Its s is nil when the request counts against no limit.
type heldSlot struct {
	c    *Client
	key  slotKey
	s    *slots
	done atomic.Bool
}

// release frees the slot; it is safe to call more than once.
func (hs *heldSlot) release() {
	if hs.s == nil || !hs.done.CompareAndSwap(false, true) {
		return
	}
	<-hs.s.sem
	hs.c.leave(hs.key, hs.s)
}

// hold acquires the slot of cl's request and records it on the request,
// first freeing the slot of the request it is a hop from: the transfer
// has moved on to this request's host, and holding both could deadlock
// two transfers that redirect into each other's hosts.
func (c *Client) hold(ctx context.Context, h Handler, cl *call) (*heldSlot, error) {
	r := &cl.r
	if r.Hop && r.slot != nil {
		r.slot.release()
	}
	r.slot = nil
	if err := c.acquire(ctx, h, r, &cl.held); err != nil {
		return nil, err
	}
	r.slot = &cl.held
	return r.slot, nil
}

// acquire waits for a transfer slot to the request's address, and
// records it in hs.
func (c *Client) acquire(ctx context.Context, h Handler, r *Request, hs *heldSlot) error {
	n := transferCap(c.perHost(), h, r.URL)
	key, ok := address(h, r)
	if n == 0 || !ok {
		return nil // hs.s is nil: no limit to count against
	}
	c.mu.Lock()
	if c.hosts == nil {
		c.hosts = make(map[slotKey]*slots)
	}
	s, ok := c.hosts[key]
	if !ok {
		s = &slots{sem: make(chan struct{}, n)}
		c.hosts[key] = s
	}
	s.users++
	c.mu.Unlock()
	select {
	case s.sem <- struct{}{}: // a slot free at once, without a select's cost
	default:
		select {
		case s.sem <- struct{}{}:
		case <-ctx.Done():
			c.leave(key, s)
			return Wrap(KindOf(context.Cause(ctx)), fmt.Errorf("waiting for a connection slot to %s: %w", key, context.Cause(ctx)))
		}
	}
	hs.c, hs.key, hs.s = c, key, s
	return nil
}

// leave drops one user of s, and s itself when it has none left.
func (c *Client) leave(key slotKey, s *slots) {
	c.mu.Lock()
	s.users--
	if s.users == 0 {
		delete(c.hosts, key)
	}
	c.mu.Unlock()
}
