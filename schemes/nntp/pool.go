package nntp

import (
	"context"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// poolKey says which idle sessions a request may reuse: same server, same
// transport, same credentials.
type poolKey struct {
	addr    string
	tls     bool
	user    string
	pass    string
	hasUser bool
}

func keyFor(req *fetch.Request, t *target) poolKey {
	k := poolKey{addr: t.addr, tls: t.tls}
	if c := req.Credentials(); c != nil {
		k.user, k.pass, k.hasUser = c.Username, c.Password, true
	}
	return k
}

func (h *Handler) maxIdle() int {
	if h.MaxIdle == 0 {
		return 2
	}
	return h.MaxIdle
}

func (h *Handler) idleTime() time.Duration {
	if h.IdleTime > 0 {
		return h.IdleTime
	}
	return 30 * time.Second
}

// checkout returns a session for the request: an idle one from the pool
// (reused reports so), or a new connection. Either way it is tied to ctx
// until release.
func (h *Handler) checkout(ctx context.Context, req *fetch.Request, t *target) (s *session, reused bool, err error) {
	key := keyFor(req, t)
	if s := h.takeIdle(key); s != nil {
		s.trace = req.Trace
		s.creds = req.Credentials()
		s.prompt = req.Prompt
		s.replies = 0
		s.stop = s.raw.Watch(ctx)
		s.trace.Notef("reusing the connection to %s", t.addr)
		return s, true, nil
	}
	s, err = dial(ctx, req, t, key)
	if err != nil {
		return nil, false, err
	}
	s.replies = 0
	return s, false, nil
}

// takeIdle removes and returns an idle session for key, closing those that
// have idled too long.
func (h *Handler) takeIdle(key poolKey) *session {
	h.mu.Lock()
	var expired []*session
	list := h.idle[key]
	keep := list[:0]
	for _, s := range list {
		if time.Since(s.idleAt) > h.idleTime() {
			expired = append(expired, s)
		} else {
			keep = append(keep, s)
		}
	}
	var found *session
	if n := len(keep); n > 0 {
		// The most recent one is the likeliest to be alive.
		found, keep = keep[n-1], keep[:n-1]
	}
	if len(keep) == 0 {
		delete(h.idle, key)
	} else {
		h.idle[key] = keep
	}
	h.mu.Unlock()
	for _, s := range expired {
		s.quit()
	}
	return found
}

// release ends the session's part in a request: back to the pool when
// reusable (the protocol is at a command boundary and the request's
// context never fired), else closed.
func (h *Handler) release(s *session, reusable bool) {
	fired := s.stop != nil && !s.stop()
	s.stop = nil
	s.trace = nil
	s.prompt = nil
	if fired || !reusable || s.broken || h.maxIdle() < 0 {
		s.nc.Close()
		return
	}
	s.idleAt = time.Now()
	h.mu.Lock()
	if h.idle == nil {
		h.idle = make(map[poolKey][]*session)
	}
	list := append(h.idle[s.key], s)
	var evict *session
	if len(list) > h.maxIdle() {
		evict, list = list[0], list[1:]
	}
	h.idle[s.key] = list
	h.mu.Unlock()
	if evict != nil {
		evict.quit()
	}
}

// Close sends QUIT on every idle connection and closes it. The Handler
// stays usable; later fetches open new connections.
func (h *Handler) Close() error {
	h.mu.Lock()
	all := h.idle
	h.idle = nil
	h.mu.Unlock()
	for _, list := range all {
		for _, s := range list {
			s.quit()
		}
	}
	return nil
}
