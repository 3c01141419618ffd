package telnet

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// Telnet commands the test server speaks (RFC 854, 855).
const (
	cSE   = 240
	cNOP  = 241
	cAYT  = 246
	cSB   = 250
	cWILL = 251
	cWONT = 252
	cDO   = 253
	cDONT = 254
	cIAC  = 255

	oECHO  = 1
	oSGA   = 3
	oTTYPE = 24
	oNAWS  = 31
)

// peer is the server's view of one connection: it strips the client's
// telnet commands from what it reads and records them.
type peer struct {
	c  net.Conn
	r  *bufio.Reader
	mu sync.Mutex
	// cmds holds the client's negotiation commands as "DO 1", "WILL 31",
	// "SB 31 ..."
	cmds []string
	// subs holds the client's subnegotiations, option first, IAC IAC
	// decoded.
	subs [][]byte
}

func (p *peer) send(b ...byte) {
	p.c.Write(b)
}

func (p *peer) sendf(format string, args ...any) {
	fmt.Fprintf(p.c, format, args...)
}

// readByte returns the next data byte the client sent.
func (p *peer) readByte() (byte, error) {
	for {
		b, err := p.r.ReadByte()
		if err != nil || b != cIAC {
			return b, err
		}
		cmd, err := p.r.ReadByte()
		if err != nil {
			return 0, err
		}
		switch {
		case cmd == cIAC:
			return cIAC, nil
		case cmd >= cWILL && cmd <= cDONT:
			opt, err := p.r.ReadByte()
			if err != nil {
				return 0, err
			}
			verb := map[byte]string{cWILL: "WILL", cWONT: "WONT", cDO: "DO", cDONT: "DONT"}[cmd]
			p.record(fmt.Sprintf("%s %d", verb, opt))
		case cmd == cSB:
			var sb []byte
			for {
				c, err := p.r.ReadByte()
				if err != nil {
					return 0, err
				}
				if c == cIAC {
					c2, err := p.r.ReadByte()
					if err != nil {
						return 0, err
					}
					if c2 == cSE {
						break
					}
					c = c2
				}
				sb = append(sb, c)
			}
			p.record(fmt.Sprintf("SB %d", sb[0]))
			p.mu.Lock()
			p.subs = append(p.subs, sb)
			p.mu.Unlock()
		default:
			p.record(fmt.Sprintf("CMD %d", cmd))
		}
	}
}

func (p *peer) record(s string) {
	p.mu.Lock()
	p.cmds = append(p.cmds, s)
	p.mu.Unlock()
}

func (p *peer) subnegotiations() [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.subs...)
}

func (p *peer) commands() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.cmds...)
}

// readLine returns the next line the client sent, with its CR LF.
func (p *peer) readLine() (string, error) {
	var line []byte
	for {
		b, err := p.readByte()
		if err != nil {
			return string(line), err
		}
		line = append(line, b)
		if b == '\n' || len(line) > 4096 {
			return string(line), nil
		}
	}
}

// readAll reads the client's data until it closes.
func (p *peer) readAll() string {
	var out bytes.Buffer
	for {
		b, err := p.readByte()
		if err != nil {
			return out.String()
		}
		out.WriteByte(b)
	}
}

// serve starts a server on 127.0.0.1:0 running fn on each connection (then
// closing it) and returns its address. Every connection's peer is sent on
// the returned channel once fn has returned.
func serve(t testing.TB, fn func(p *peer)) (string, <-chan *peer) {
	t.Helper()
	return serveOn(t, fetchtest.Serve, fn)
}

// servePipes is serve on pn, a network in memory, for a test in a
// synctest bubble whose Client dials with pn.DialContext.
func servePipes(t testing.TB, pn *fetchtest.Pipes, fn func(p *peer)) (string, <-chan *peer) {
	t.Helper()
	return serveOn(t, pn.Serve, fn)
}

// serveOn is serve by listen (fetchtest.Serve or a Pipes' Serve).
func serveOn(t testing.TB, listen func(testing.TB, func(net.Conn)) string, fn func(p *peer)) (string, <-chan *peer) {
	t.Helper()
	done := make(chan *peer, 16)
	addr := listen(t, func(c net.Conn) {
		p := &peer{c: c, r: bufio.NewReader(c)}
		fn(p)
		// Close gracefully: unread client bytes would turn the
		// close into a reset that discards the client's input.
		if tc, ok := c.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		io.Copy(io.Discard, p.r)
		select {
		case done <- p:
		default:
		}
	})
	return addr, done
}

// drain reads what the client sends until it closes, so that negotiation
// replies never block.
func drain(p *peer) { io.Copy(io.Discard, p.r) }

// serveB is serve for benchmarks.
func serveB(b *testing.B, fn func(p *peer)) (string, <-chan *peer) { return serve(b, fn) }
