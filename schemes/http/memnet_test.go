package http

import (
	"net"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// memServe is fetchtest.Serve on a network of pipes (fetchtest.Pipes),
// for a test in a testing/synctest bubble, whose waits then run on the
// bubble's clock: serve answers each connection dialed. It returns the
// base URL and the network; fetch its URLs with memClient.
func memServe(t testing.TB, serve func(c net.Conn)) (string, *fetchtest.Pipes) {
	t.Helper()
	p := new(fetchtest.Pipes)
	return "http://" + p.Serve(t, serve), p
}

// memClient returns a Client whose connections are made on p, with h as
// its http handler; it follows no redirect.
func memClient(p *fetchtest.Pipes, h *Handler) *fetch.Client {
	c := &fetch.Client{DialContext: p.DialContext, MaxRedirects: -1}
	c.Register("http", h)
	return c
}
