package fetch

import (
	"context"
	"errors"
	"net"
	"os"
	"sync/atomic"
	"time"
)

// Conn is a net.Conn on which every Read and Write has a deadline: the
// idle timeout from the start of the call. Once the context given to Watch
// is done, every call fails at once with the context's cause.
type Conn struct {
	net.Conn
	idle  time.Duration
	cause atomic.Pointer[error]
}

// NewConn wraps c so that each Read and Write waits at most idle (zero
// means 60 seconds).
func NewConn(c net.Conn, idle time.Duration) *Conn {
	if idle <= 0 {
		idle = 60 * time.Second
	}
	return &Conn{Conn: c, idle: idle}
}

var longAgo = time.Unix(1, 0)

// Watch ties the connection to ctx until stop is called: when ctx is done,
// pending and later I/O fails with an error of Kind Timeout (deadline) or
// wrapping context.Canceled.
func (c *Conn) Watch(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		err := context.Cause(ctx)
		c.cause.Store(&err)
		c.Conn.SetDeadline(longAgo)
	})
}

func (c *Conn) dead() error {
	if p := c.cause.Load(); p != nil {
		return Wrap(KindOf(*p), *p)
	}
	return nil
}

func (c *Conn) arm(set func(time.Time) error) error {
	if err := c.dead(); err != nil {
		return err
	}
	set(time.Now().Add(c.idle))
	if err := c.dead(); err != nil {
		set(longAgo)
		return err
	}
	return nil
}

// Read reads with the idle deadline.
func (c *Conn) Read(p []byte) (int, error) {
	if err := c.arm(c.Conn.SetReadDeadline); err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(p)
	if err != nil {
		if d := c.dead(); d != nil && errors.Is(err, errDeadline) {
			err = d
		}
	}
	return n, err
}

// Write writes with the idle deadline.
func (c *Conn) Write(p []byte) (int, error) {
	if err := c.arm(c.Conn.SetWriteDeadline); err != nil {
		return 0, err
	}
	n, err := c.Conn.Write(p)
	if err != nil {
		if d := c.dead(); d != nil && errors.Is(err, errDeadline) {
			err = d
		}
	}
	return n, err
}

var errDeadline = os.ErrDeadlineExceeded

// Dial connects to addr ("host:port") within the request's connect timeout
// and ctx, tracing the attempt, and returns the connection wrapped as a
// *Conn with the request's idle timeout. Failures are *Error values of Kind
// Connect or Timeout.
func (r *Request) Dial(ctx context.Context, network, addr string) (*Conn, error) {
	r.Trace.Notef("connecting to %s", addr)
	d := net.Dialer{Timeout: r.connectTimeout()}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		k := KindOf(err)
		if k != Timeout {
			k = Connect
		}
		return nil, &Error{Kind: k, Err: err}
	}
	r.Trace.Notef("connected to %s", c.RemoteAddr())
	return NewConn(c, r.idleTimeout()), nil
}
