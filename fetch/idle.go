package fetch

import "strings"

// An IdleCloser is a Handler that keeps idle connections between requests
// and can close those to one address. CloseIdle closes the idle
// connections the handler keeps to hostport ("host:port", as
// url.URL.HostPort gives it; the host compared without regard to case),
// leaving those in use and those to other addresses alone. A program that
// shares a per-host limit with other processes (a fleet of workers
// holding leases on host slots) calls it when it gives a slot up, so that
// the connections it keeps open stay within the slots it holds.
type IdleCloser interface {
	CloseIdle(hostport string)
}

// CloseIdle closes the idle connections that the registered handlers keep
// to hostport (those that implement IdleCloser); connections in use are
// left alone and close when their requests end, if their handlers do not
// keep them.
func (c *Client) CloseIdle(hostport string) {
	c.mu.Lock()
	hs := make([]Handler, 0, len(c.handlers))
	for _, h := range c.handlers {
		hs = append(hs, h)
	}
	c.mu.Unlock()
	for _, h := range hs {
		// A handler registered for two schemes is called twice: the
		// second call finds nothing idle.
		if ic, ok := h.(IdleCloser); ok {
			ic.CloseIdle(strings.ToLower(hostport))
		}
	}
}
