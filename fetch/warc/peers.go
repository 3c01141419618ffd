package warc

import (
	"context"
	"net"
	"net/netip"
	"sync"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// peers remembers, for each host:port, the numeric address of the server
// a fetch of a URL on it first connected to, for WARC-IP-Address. The
// Client's dial hook sees only the resolved address; the fetch's context
// carries a note naming the host:port, filled by the first dial made under
// it (later dials of the same fetch may be a redirect's, to another host),
// in the manner of net/http/httptrace.
type peers struct {
	mu sync.Mutex
	m  map[string]string
}

type noteKey struct{}

// note is what a fetch's context carries: the host:port it is for, and
// whether a dial has filled it.
type note struct {
	hostport string
	once     sync.Once
}

func (p *peers) context(ctx context.Context, u *url.URL) context.Context {
	return context.WithValue(ctx, noteKey{}, &note{hostport: u.HostPort()})
}

func (p *peers) dial(next func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if next == nil {
		next = new(net.Dialer).DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		n, _ := ctx.Value(noteKey{}).(*note)
		if n == nil {
			return c, nil
		}
		ap, perr := netip.ParseAddrPort(c.RemoteAddr().String())
		if perr != nil {
			return c, nil
		}
		n.once.Do(func() {
			p.mu.Lock()
			if p.m == nil {
				p.m = make(map[string]string)
			}
			p.m[n.hostport] = ap.Addr().Unmap().String()
			p.mu.Unlock()
		})
		return c, nil
	}
}

func (p *peers) lookup(u *url.URL) string {
	if u == nil || u.Host == "" {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[u.HostPort()]
}

// Dial wraps a dial function (next; a net.Dialer's DialContext when nil)
// so that the Writer learns the numeric address of the servers fetched
// through Do, for WARC-IP-Address. Install it as the fetch.Client's
// DialContext:
//
//	c.DialContext = w.Dial(c.DialContext)
//
// Without it, records carry no WARC-IP-Address. A connection pooled across
// fetches is named by the address its first fetch reached.
func (w *Writer) Dial(next func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return w.peers.dial(next)
}

// Do fetches req with c, like c.Do, and returns the Resource with its Body
// replaced by Tee's: the fetch is recorded when the caller closes Body.
// Failed fetches are not recorded.
func (w *Writer) Do(ctx context.Context, c *fetch.Client, req *fetch.Request) (*fetch.Resource, error) {
	res, err := c.Do(w.peers.context(ctx, req.URL), req)
	if err != nil {
		return nil, err
	}
	res.Body = w.Tee(req, res)
	return res, nil
}
