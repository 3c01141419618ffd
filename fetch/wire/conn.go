package wire

import (
	"context"
	"errors"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// Conn is a net.Conn on which every Read and Write has a deadline: the
// idle timeout from the start of the call. Once the context given to Watch
// is done, every call fails at once with the context's cause.
type Conn struct {
	net.Conn
	idle   time.Duration
	cause  atomic.Pointer[error]
	until  time.Time     // SetReplyTimeout's bound on reads, zero for none
	within time.Duration // the length of that bound, for its error
}

// NewConn wraps c so that each Read and Write waits at most idle (zero
// means DefaultIdleTimeout).
func NewConn(c net.Conn, idle time.Duration) *Conn {
	if idle <= 0 {
		idle = fetch.DefaultIdleTimeout
	}
	return &Conn{Conn: c, idle: idle}
}

// NetConn returns the connection c wraps, as (*tls.Conn).NetConn does, so
// that the Client's policy (Request.CheckReuse) and TCPConn find what is
// beneath.
func (c *Conn) NetConn() net.Conn { return c.Conn }

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
		return fetch.Wrap(fetch.KindOf(*p), *p)
	}
	return nil
}

// SetReplyTimeout bounds the reads that follow by d in all, counted from
// now, until it is called again: each Read's deadline is the idle timeout
// from its start or the bound, whichever comes first, so that a reply
// that must arrive whole within d cannot take longer by spacing its bytes.
// A Read the bound ends fails with an error of Kind Timeout saying that no
// whole reply came within d (it matches ErrReplyTimeout and wraps
// context.DeadlineExceeded). Zero
// lifts the bound. Only the goroutine that reads may call it; it does
// not allocate.
func (c *Conn) SetReplyTimeout(d time.Duration) {
	if d <= 0 {
		c.until, c.within = time.Time{}, 0
		return
	}
	c.until, c.within = time.Now().Add(d), d
}

// ErrReplyTimeout matches, with errors.Is, the error of a Read that a
// Conn's SetReplyTimeout ended.
var ErrReplyTimeout = errors.New("no whole reply in time")

// replyTimeout is the cause of a reply that did not arrive whole within
// its SetReplyTimeout.
type replyTimeout struct{ d time.Duration }

func (e *replyTimeout) Error() string { return "no whole reply within " + e.d.String() }

// Is matches ErrReplyTimeout.
func (e *replyTimeout) Is(target error) bool { return target == ErrReplyTimeout }

// Unwrap makes the cause a deadline.
func (e *replyTimeout) Unwrap() error { return context.DeadlineExceeded }

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
	if err != nil && errors.Is(err, errDeadline) {
		if d := c.dead(); d != nil {
			err = d
		} else if !c.until.IsZero() && !time.Now().Before(c.until) {
			err = &fetch.Error{Kind: fetch.Timeout, Err: &replyTimeout{d: c.within}}
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
