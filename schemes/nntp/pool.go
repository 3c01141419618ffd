package nntp

import (
	"context"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
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
	k := poolKey{addr: t.addr(), tls: t.tls}
	if c := req.Credentials(); c != nil {
		k.user, k.pass, k.hasUser = c.Username, c.Password, true
	}
	return k
}

// pool returns the Handler's pool of idle sessions, made on first use
// from MaxIdle and IdleTime.
func (h *Handler) pool() *wire.Pool[poolKey, *session] {
	h.poolOnce.Do(func() {
		h.idle = &wire.Pool[poolKey, *session]{MaxIdle: h.MaxIdle, IdleTime: h.IdleTime, Discard: (*session).quit}
	})
	return h.idle
}

// checkout returns a session for the request: an idle one from the pool
// (reused reports so), or a new connection. Either way it is tied to ctx
// until release.
func (h *Handler) checkout(ctx context.Context, req *fetch.Request, t *target) (s *session, reused bool, err error) {
	key := keyFor(req, t)
	if s := h.takeIdle(key); s != nil {
		if err := req.CheckReuse(s.raw); err != nil {
			h.pool().Put(key, s) // another request may use it
			return nil, false, err
		}
		s.trace = req.Trace
		s.creds = req.Credentials()
		s.prompt = req.Prompt
		s.replies = 0
		s.stop = s.raw.Watch(ctx)
		s.trace.Notef("reusing the connection to %s", t.addr())
		return s, true, nil
	}
	s, err = dial(ctx, req, t, key, &h.sessions)
	if err != nil {
		return nil, false, err
	}
	s.replies = 0
	return s, false, nil
}

// takeIdle removes and returns an idle session for key, or nil.
func (h *Handler) takeIdle(key poolKey) *session {
	s, _ := h.pool().Get(key)
	return s
}

// release ends the session's part in a request: back to the pool when
// reusable (the protocol is at a command boundary and the request's
// context never fired), else closed.
func (h *Handler) release(s *session, reusable bool) {
	fired := s.stop != nil && !s.stop()
	s.stop = nil
	s.trace = nil
	s.prompt = nil
	if fired || !reusable || s.broken {
		s.nc.Close()
		return
	}
	h.pool().Put(s.key, s)
}

// Close sends QUIT on every idle connection and closes it. The Handler
// stays usable; later fetches open new connections, which are closed
// rather than pooled when released.
func (h *Handler) Close() error {
	return h.pool().Close()
}

// Address returns the server ("host:port") a fetch of req dials: the
// URL's for nntp and nntps, the configured one for news and snews, whose
// URLs name none. It makes the Handler a fetch.Addresser, so that a Client
// counts news: fetches against their server's per-host limit.
func (h *Handler) Address(req *fetch.Request) string {
	t, err := h.resolve(req.URL, true)
	if err != nil {
		return ""
	}
	return t.addr()
}
