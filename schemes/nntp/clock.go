package nntp

import (
	"io"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// replyClock sits between a session's connection and its buffered reader.
// While a reply is being read (a status line, a short block), the whole
// reply must come within idle, however the server spaces its bytes: a
// read that starts past that time fails with a Timeout. The connection's
// own deadline bounds each single wait, so a reply ends within twice the
// idle timeout at worst.
type replyClock struct {
	r    io.Reader
	idle time.Duration
	end  time.Time // zero: no reply under way
}

// start begins a reply.
func (c *replyClock) start() { c.end = time.Now().Add(c.idle) }

// stop ends it: what follows (an article's body) is not bounded as a whole.
func (c *replyClock) stop() { c.end = time.Time{} }

func (c *replyClock) Read(p []byte) (int, error) {
	if !c.end.IsZero() && time.Now().After(c.end) {
		return 0, fetch.Errorf(fetch.Timeout, "the server's reply took longer than %v", c.idle)
	}
	return c.r.Read(p)
}
