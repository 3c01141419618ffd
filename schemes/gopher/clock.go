package gopher

import (
	"bytes"
	"context"
	"io"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// lineClock sits between a session's connection and its buffered reader.
// While on, each line must arrive whole within the idle timeout, however
// the server spaces its bytes: the time spent waiting in reads counts
// against the line until its line end comes. A line that takes longer
// cancels the session with a Timeout. The connection's own deadline still
// bounds each single wait.
type lineClock struct {
	r      io.Reader
	idle   time.Duration
	cancel context.CancelCauseFunc
	timer  *time.Timer

	mu   sync.Mutex
	on   bool
	left time.Duration
}

func newLineClock(r io.Reader, idle time.Duration, cancel context.CancelCauseFunc) *lineClock {
	c := &lineClock{r: r, idle: idle, cancel: cancel, on: true, left: idle}
	c.timer = time.AfterFunc(time.Hour, func() {
		cancel(fetch.Errorf(fetch.Timeout, "a line of the reply took longer than %v to arrive", idle))
	})
	c.timer.Stop()
	return c
}

// lines turns the clock on (for menus and protocol lines) or off (for
// items of any length).
func (c *lineClock) lines(on bool) {
	c.mu.Lock()
	c.on = on
	c.mu.Unlock()
}

func (c *lineClock) Read(p []byte) (int, error) {
	c.mu.Lock()
	on, left := c.on, c.left
	c.mu.Unlock()
	if !on {
		return c.r.Read(p)
	}
	start := time.Now()
	c.timer.Reset(left)
	n, err := c.r.Read(p)
	c.timer.Stop()
	c.mu.Lock()
	if bytes.IndexByte(p[:n], '\n') >= 0 {
		c.left = c.idle
	} else {
		c.left -= time.Since(start)
	}
	c.mu.Unlock()
	return n, err
}

// stop ends the clock for good.
func (c *lineClock) stop() { c.timer.Stop() }
