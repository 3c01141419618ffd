package ftp

import (
	"net"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// scripted serves FTP on 127.0.0.1 for tests of odd servers: greet writes
// the greeting (nil: "220 ready"), and answer replies to each command,
// returning false when it did not know the command; anonymous login and
// PWD ("/") are answered when answer does not.
func scripted(t *testing.T, greet func(c net.Conn), answer func(tp *textproto.Conn, verb, arg string) bool) string {
	t.Helper()
	return fetchtest.Serve(t, script(greet, answer))
}

// scriptedPipes is scripted on a network of pipes, for a test in a
// testing/synctest bubble (see pipeClient); passive's data listener, in
// answer, must then be on p too (passiveOn).
func scriptedPipes(t *testing.T, p *fetchtest.Pipes, greet func(c net.Conn), answer func(tp *textproto.Conn, verb, arg string) bool) string {
	t.Helper()
	return p.Serve(t, script(greet, answer))
}

// pipeClient returns a Client whose connections are made on p, with h as
// its ftp handler: a fetch through it in a synctest bubble waits on the
// bubble's clock.
func pipeClient(p *fetchtest.Pipes, h *Handler) *fetch.Client {
	c := &fetch.Client{DialContext: p.DialContext}
	c.Register("ftp", h)
	return c
}

// script is scripted's answer to a connection.
func script(greet func(c net.Conn), answer func(tp *textproto.Conn, verb, arg string) bool) func(net.Conn) {
	return func(c net.Conn) {
		tp := textproto.NewConn(c)
		if greet != nil {
			greet(c)
		} else {
			tp.PrintfLine("220 ready")
		}
		for {
			line, err := tp.ReadLine()
			if err != nil {
				return
			}
			verb, arg, _ := strings.Cut(line, " ")
			if answer != nil && answer(tp, verb, arg) {
				continue
			}
			switch verb {
			case "USER":
				tp.PrintfLine("331 password, please")
			case "PASS":
				tp.PrintfLine("230 in")
			case "PWD":
				tp.PrintfLine(`257 "/"`)
			case "TYPE":
				tp.PrintfLine("200 ok")
			case "QUIT":
				tp.PrintfLine("221 bye")
				return
			default:
				tp.PrintfLine("502 no")
			}
		}
	}
}

// passive answers EPSV with a data listener on 127.0.0.1 and gives serve
// the one connection it accepts, within 10 seconds, closing it after;
// it answers 425 when it cannot listen.
func passive(tp *textproto.Conn, serve func(dc net.Conn)) {
	passiveOn(nil, tp, serve)
}

// passiveOn is passive with the data listener on p; nil p means a socket.
func passiveOn(p *fetchtest.Pipes, tp *textproto.Conn, serve func(dc net.Conn)) {
	var ln net.Listener
	var err error
	if p != nil {
		ln, err = p.Listen("127.0.0.1:0")
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		tp.PrintfLine("425 no")
		return
	}
	stop := time.AfterFunc(10*time.Second, func() { ln.Close() })
	go func() {
		defer ln.Close()
		dc, err := ln.Accept()
		stop.Stop()
		if err != nil {
			return
		}
		defer dc.Close()
		serve(dc)
	}()
	tp.PrintfLine("229 Entering Extended Passive Mode (|||%d|)", ln.Addr().(*net.TCPAddr).Port)
}

// drip writes s to c one byte every d, until s is written or c fails.
func drip(c net.Conn, s string, d time.Duration) {
	for i := 0; i < len(s); i++ {
		if _, err := c.Write([]byte{s[i]}); err != nil {
			return
		}
		time.Sleep(d)
	}
}

// closedPort returns a port of 127.0.0.1 that nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return p
}
