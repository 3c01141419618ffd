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
	until time.Time // SetReadLimit's bound on reads, zero for none
}

// NewConn wraps c so that each Read and Write waits at most idle (zero
// means DefaultIdleTimeout).
func NewConn(c net.Conn, idle time.Duration) *Conn {
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	return &Conn{Conn: c, idle: idle}
}

// IdleTimeout returns the longest wait of a Read or Write.
func (c *Conn) IdleTimeout() time.Duration { return c.idle }

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

// SetReadLimit bounds the reads that follow by t, until it is called
// again: each Read's deadline is the idle timeout from its start or t,
// whichever comes first, so that a reply that must arrive whole within a
// time cannot take longer by spacing its bytes. The zero Time lifts the
// bound. Only the goroutine that reads may call it. A Read that t ends
// fails as a deadline does (os.ErrDeadlineExceeded).
func (c *Conn) SetReadLimit(t time.Time) { c.until = t }

func (c *Conn) arm(set func(time.Time) error, until time.Time) error {
	if err := c.dead(); err != nil {
		return err
	}
	dl := time.Now().Add(c.idle)
	if !until.IsZero() && until.Before(dl) {
		dl = until
	}
	set(dl)
	if err := c.dead(); err != nil {
		set(past)
		return err
	}
	return nil
}

// Read reads with the idle deadline.
func (c *Conn) Read(p []byte) (int, error) {
	if err := c.arm(c.Conn.SetReadDeadline, c.until); err != nil {
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
	if err := c.arm(c.Conn.SetWriteDeadline, time.Time{}); err != nil {
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
