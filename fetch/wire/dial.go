package wire

import (
	"context"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// Dial connects to addr ("host:port") for req, as req.DialContext does
// (the Policy applied to every address, the Client's dial hook, resolver
// and proxy), and returns the connection as a *Conn with the request's
// idle timeout, tracing the attempt. It is how handlers dial.
func Dial(ctx context.Context, req *fetch.Request, network, addr string) (*Conn, error) {
	req.Trace.Notef("connecting to %s", addr)
	c, err := req.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	req.Trace.Notef("connected to %s", c.RemoteAddr())
	return NewConn(c, req.EffectiveIdleTimeout()), nil
}

// past is a deadline already gone by: setting it makes pending and later
// I/O on a connection fail at once.
var past = time.Unix(1, 0)

// Past returns a deadline in the past: conn.SetDeadline(wire.Past())
// aborts a connection's pending I/O without closing it.
func Past() time.Time { return past }
