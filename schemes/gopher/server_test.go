package gopher

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// respond answers one request on c; line is the request line without its
// CRLF, br reads whatever the client sends after it.
type respond func(c net.Conn, br *bufio.Reader, line string)

// server is an in-process gopher server on 127.0.0.1:0 that records the
// request lines it receives and answers from routes, keyed by the request
// line (without CRLF) or, failing that, by its selector.
type server struct {
	addr   string
	routes map[string]respond

	mu    sync.Mutex
	lines []string
}

func newServer(t testing.TB, routes map[string]respond) *server {
	t.Helper()
	s := &server{routes: routes}
	s.addr = fetchtest.Serve(t, s.serve)
	return s
}

// newPipeServer is newServer on p, a network in memory, for a test in a
// testing/synctest bubble, whose waits then run on the bubble's clock:
// fetch from it with pipeClient(p, h).
func newPipeServer(t testing.TB, p *fetchtest.Pipes, routes map[string]respond) *server {
	t.Helper()
	s := &server{routes: routes}
	s.addr = p.Serve(t, s.serve)
	return s
}

// pipeClient returns a Client whose connections are made on p, with h as
// its gopher handler.
func pipeClient(p *fetchtest.Pipes, h *Handler) *fetch.Client {
	c := &fetch.Client{DialContext: p.DialContext}
	c.Register("gopher", h)
	return c
}

func newTLSServer(t testing.TB, routes map[string]respond, cfg *tls.Config) *server {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{routes: routes}
	s.addr = fetchtest.ServeListener(t, ln, s.serve)
	return s
}

func (s *server) serve(c net.Conn) {
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		return
	}
	line = strings.TrimSuffix(line, "\r\n")
	s.mu.Lock()
	s.lines = append(s.lines, line)
	s.mu.Unlock()
	r, ok := s.routes[line]
	if !ok {
		sel, _, _ := strings.Cut(line, "\t")
		r, ok = s.routes[sel]
	}
	if !ok {
		io.WriteString(c, "3'"+line+"' does not exist\t\terror.host\t1\r\n.\r\n")
		return
	}
	r(c, br, line)
}

// received returns the request lines received so far.
func (s *server) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

// send answers with body and closes.
func send(body string) respond {
	return func(c net.Conn, _ *bufio.Reader, _ string) { io.WriteString(c, body) }
}

// reset answers with body and then resets the connection.
func reset(body string) respond {
	return func(c net.Conn, _ *bufio.Reader, _ string) {
		io.WriteString(c, body)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		c.Close()
	}
}

// hang never answers: it reads until the client (or the cleanup) closes.
func hang(_ net.Conn, br *bufio.Reader, _ string) { io.Copy(io.Discard, br) }
