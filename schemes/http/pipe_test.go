package http

import (
	"context"
	"net"
	"sync"
	"syscall"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// pipeListener is a net.Listener whose connections are net.Pipe ends,
// made by its DialContext: a network in memory. Unlike a socket's, a
// wait on a pipe is durably blocking in a testing/synctest bubble, so a
// test of timeouts made there runs on the bubble's clock and takes no
// time. Make it inside the bubble.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept returns the server's end of the next connection dialed.
func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept; a dial after it is refused.
func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is the address the test's URLs name; any address dials l.
func (l *pipeListener) Addr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
}

// DialContext connects to l, whatever addr says, for fetch.Client's hook.
func (l *pipeListener) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c1, c2 := net.Pipe()
	select {
	case l.conns <- c2:
		return c1, nil
	case <-l.done:
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pipeServe is fetchtest.Serve on a pipeListener: serve answers each
// connection a Client from pipeClient dials. It returns the base URL
// ("http://127.0.0.1:8080") and the listener.
func pipeServe(t testing.TB, serve func(c net.Conn)) (string, *pipeListener) {
	t.Helper()
	l := newPipeListener()
	return "http://" + fetchtest.ServeListener(t, l, serve), l
}

// pipeClient returns a Client whose every connection goes to l, with h
// as its http handler.
func pipeClient(l *pipeListener, h *Handler) *fetch.Client {
	c := &fetch.Client{DialContext: l.DialContext, MaxRedirects: -1}
	c.Register("http", h)
	return c
}
