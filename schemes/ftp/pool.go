package ftp

import (
	"context"
	"slices"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// The pool keeps logged-in control connections per (scheme, host, port,
// user), so that fetching many URLs from one server costs one login
// (RFC 1738 §3.2.5). A connection goes back to the pool only in step with
// its server (its last reply read) and only when it can find its way back
// to where it logged in: it is at the login directory still, or the server
// named that directory with an absolute path, to which one CWD returns.

// pool returns the Handler's pool of idle control connections, made on
// first use from MaxIdle and IdleTime.
func (h *Handler) pool() *wire.Pool[string, *ctrl] {
	h.poolOnce.Do(func() {
		maxIdle := h.MaxIdle
		if maxIdle <= 0 {
			maxIdle = 8
		}
		h.idle = &wire.Pool[string, *ctrl]{MaxIdle: maxIdle, IdleTime: h.IdleTime, Discard: func(c *ctrl) { c.close(true) }}
	})
	return h.idle
}

// take returns the most recently used idle connection of key, or nil.
func (h *Handler) take(key string) *ctrl {
	c, _ := h.pool().Get(key)
	return c
}

// release ends c's part in the current request. When inStep (its last
// reply was read) and reusable, it goes back to the pool; otherwise it is
// closed.
func (h *Handler) release(key string, c *ctrl, inStep bool) {
	reusable := inStep && !h.NoReuse && (len(c.cwds) == 0 || c.loginDir != "")
	if inStep && !reusable && !h.NoReuse {
		c.trace.Notef("closing the connection: it cannot return to its login directory (no absolute PWD, RFC 1738 §3.2.5)")
	}
	if !c.unwatch() {
		reusable = false // the request's context ended: the connection is dead
	}
	if !reusable {
		c.close(inStep)
		return
	}
	h.pool().Put(key, c)
}

// acquire returns a logged-in control connection for the request, watched
// by ctx: a pooled one brought back to its login directory, or a new one.
// reused reports which.
func (h *Handler) acquire(ctx context.Context, req *fetch.Request, lg login, key string, cwds []string) (c *ctrl, reused bool, err error) {
	for c = h.take(key); c != nil; c = h.take(key) {
		if err := req.CheckReuse(c.raw); err != nil {
			h.pool().Put(key, c) // another request may use it
			return nil, false, err
		}
		c.watch(ctx, req.Trace)
		c.replies = 0
		c.trace.Notef("reusing the connection to %s (user %s)", req.URL.HostPort(), lg.user)
		if len(c.cwds) == 0 || slices.Equal(c.cwds, cwds) {
			return c, true, nil
		}
		c.trace.Notef("returning to the login directory %q (RFC 1738 §3.2.5)", c.loginDir)
		code, msg, err := c.cmd("CWD " + c.loginDir)
		if err == nil && code/100 == 2 {
			c.cwds = c.cwds[:0]
			return c, true, nil
		}
		if err == nil {
			c.trace.Notef("cannot return to the login directory (%d %s): closing the connection and logging in afresh", code, msg)
		} else {
			c.trace.Notef("the reused connection failed: logging in afresh")
		}
		c.unwatch()
		c.close(err == nil)
	}
	c, err = h.dial(ctx, req, lg)
	return c, false, err
}

// CloseIdle closes, saying QUIT, the pooled connections to hostport, of
// every user (fetch.IdleCloser).
func (h *Handler) CloseIdle(hostport string) {
	h.pool().DiscardIdle(func(key string) bool {
		_, rest, _ := strings.Cut(key, "\x00")
		hp, _, _ := strings.Cut(rest, "\x00")
		return strings.EqualFold(hp, hostport)
	})
}

// Close closes every pooled connection, saying QUIT to each. The Handler
// remains usable; connections released later are closed, not pooled.
func (h *Handler) Close() error {
	return h.pool().Close()
}
