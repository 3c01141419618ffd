package fetch

import (
	"context"
	"net"
	"net/netip"
	"sync"
	"time"
)

// DefaultFallbackDelay is how long a connection attempt to one address
// runs before the attempt to the next begins, when Client.FallbackDelay
// is zero: RFC 8305's recommended Connection Attempt Delay.
const DefaultFallbackDelay = 250 * time.Millisecond

// dialAddrs connects to one of ips on port, racing them as RFC 8305
// (Happy Eyeballs v2) says: the addresses are ordered IPv6 first, the
// families interleaved; an attempt starts when the one before has failed
// or has run for the fallback delay without connecting, whichever comes
// first; the first connection made wins, and the others are cancelled (or
// closed, if they connect after all). With a negative delay the addresses
// are tried one after another, each with a share of the time left.
func (r *Request) dialAddrs(ctx context.Context, network string, ips []netip.Addr, port uint16) (net.Conn, netip.Addr, error) {
	dial := r.dialer
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	ips = interleave(ips)
	delay := r.net.fallbackDelay()
	if len(ips) == 1 || delay < 0 {
		return r.dialInTurn(ctx, dial, network, ips, port)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		c   net.Conn
		a   netip.Addr
		err error
	}
	var (
		mu   sync.Mutex
		done bool // a winner is chosen: later connections close themselves
	)
	results := make(chan result, len(ips))
	next, pending := 0, 0
	start := func() {
		a := ips[next]
		next++
		pending++
		target := netip.AddrPortFrom(a, port).String()
		r.Trace.Notef("trying %s", target)
		go func() {
			c, err := dial(ctx, network, target)
			mu.Lock()
			defer mu.Unlock()
			if done {
				if err == nil {
					c.Close()
				}
				return
			}
			results <- result{c, a, err}
		}()
	}
	// finish marks the race over and closes connections already reported.
	finish := func() {
		mu.Lock()
		done = true
		mu.Unlock()
		cancel()
		for {
			select {
			case res := <-results:
				if res.c != nil {
					res.c.Close()
				}
			default:
				return
			}
		}
	}
	timer := time.NewTimer(delay)
	defer timer.Stop()
	start()
	var first error
	for pending > 0 {
		select {
		case res := <-results:
			pending--
			if res.err == nil {
				finish()
				return res.c, res.a, nil
			}
			if first == nil {
				first = res.err
			}
			if next < len(ips) && ctx.Err() == nil {
				start()
				timer.Reset(delay)
			}
		case <-timer.C:
			if next < len(ips) {
				start()
				timer.Reset(delay)
			}
		case <-ctx.Done():
			finish()
			if first == nil {
				first = ctx.Err()
			}
			return nil, netip.Addr{}, first
		}
	}
	finish()
	return nil, netip.Addr{}, first
}

// dialInTurn tries ips one after another, each with a share of the time
// left.
func (r *Request) dialInTurn(ctx context.Context, dial func(context.Context, string, string) (net.Conn, error), network string, ips []netip.Addr, port uint16) (net.Conn, netip.Addr, error) {
	var first error
	for i, a := range ips {
		actx, acancel := ctx, context.CancelFunc(func() {})
		if left := len(ips) - i; left > 1 {
			actx, acancel = context.WithDeadline(ctx, share(ctx, left))
		}
		c, err := dial(actx, network, netip.AddrPortFrom(a, port).String())
		acancel()
		if err == nil {
			return c, a, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, netip.Addr{}, first
}

// interleave orders addresses as RFC 8305 §4 says: IPv6 first, then the
// families alternating, each family's addresses in the resolver's order.
func interleave(ips []netip.Addr) []netip.Addr {
	var v6, v4 []netip.Addr
	for _, a := range ips {
		if a.Unmap().Is4() {
			v4 = append(v4, a)
		} else {
			v6 = append(v6, a)
		}
	}
	if len(v6) == 0 || len(v4) == 0 {
		return ips
	}
	out := make([]netip.Addr, 0, len(ips))
	for i := 0; i < len(v6) || i < len(v4); i++ {
		if i < len(v6) {
			out = append(out, v6[i])
		}
		if i < len(v4) {
			out = append(out, v4[i])
		}
	}
	return out
}
