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
// means DefaultIdleTimeout).
func NewConn(c net.Conn, idle time.Duration) *Conn {
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	return &Conn{Conn: c, idle: idle}
}

// Watch ties the connection to ctx until stop is called: when ctx is done,
// pending and later I/O fails with the context's cause, as an error of
// Kind Timeout (a deadline) or Canceled (wrapping context.Canceled).
func (c *Conn) Watch(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		err := context.Cause(ctx)
		c.cause.Store(&err)
		c.Conn.SetDeadline(past)
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
		set(past)
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
