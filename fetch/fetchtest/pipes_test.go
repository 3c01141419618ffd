package fetchtest

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// TestPipes: a dial reaches the listener at its address, and the two ends
// carry each other's TCP addresses; a dial elsewhere, or after Close, is
// refused; and a read deadline an hour away passes at once on the
// bubble's clock, which a socket's would not let it do.
func TestPipes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p Pipes
		server := make(chan net.Addr, 1)
		addr := p.Serve(t, func(c net.Conn) {
			server <- c.RemoteAddr()
			io.Copy(c, c)
		})
		other := p.Serve(t, func(c net.Conn) { io.WriteString(c, "other") })
		if addr == other {
			t.Fatalf("two listeners at %s", addr)
		}
		ctx := context.Background()
		c, err := p.DialContext(ctx, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if got := c.RemoteAddr().(*net.TCPAddr).String(); got != addr {
			t.Errorf("RemoteAddr = %s, want %s", got, addr)
		}
		if got := <-server; got.String() != c.LocalAddr().String() {
			t.Errorf("the server's RemoteAddr = %v, the client's LocalAddr %v", got, c.LocalAddr())
		}
		go io.WriteString(c, "echo")
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "echo" {
			t.Errorf("echo: %q, %v", buf, err)
		}

		start := time.Now()
		c.SetReadDeadline(start.Add(time.Hour))
		if _, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != time.Hour {
			t.Errorf("Read past the deadline: %v after %v, want a deadline error after 1h", err, time.Since(start))
		}

		if _, err := p.DialContext(ctx, "tcp", "127.0.0.1:1"); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("dial to no listener: %v, want ECONNREFUSED", err)
		}
		if _, err := p.Listen(addr); !errors.Is(err, syscall.EADDRINUSE) {
			t.Errorf("Listen on a listener's address: %v, want EADDRINUSE", err)
		}
		ln, err := p.Listen("127.0.0.1:21")
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
		if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
		}
		if _, err := p.DialContext(ctx, "tcp", "127.0.0.1:21"); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("dial after Close: %v, want ECONNREFUSED", err)
		}
	})
}
