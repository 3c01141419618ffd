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
// carry each other's TCP addresses; a dial is answered before Accept; a
// dial elsewhere, or after Close, is refused; and a read deadline an hour away passes at once on the
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
		// A dial goes into the backlog, as TCP's does, without an Accept;
		// Close closes what it holds.
		ln, err := p.Listen("127.0.0.1:21")
		if err != nil {
			t.Fatal(err)
		}
		waiting, err := p.DialContext(ctx, "tcp", "127.0.0.1:21")
		if err != nil {
			t.Fatalf("dial before Accept: %v", err)
		}
		ln.Close()
		if _, err := waiting.Read(buf); err != io.EOF {
			t.Errorf("Read of a connection never accepted, after Close: %v, want io.EOF", err)
		}
		if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
		}
		if _, err := p.DialContext(ctx, "tcp", "127.0.0.1:21"); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("dial after Close: %v, want ECONNREFUSED", err)
		}
	})
}

// TestPipesPackets: UDP on Pipes keeps each datagram's bounds, delivers a
// connected endpoint only its peer's datagrams, loses what finds no room
// or no endpoint, and passes a read deadline on the bubble's clock.
func TestPipesPackets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p Pipes
		srv, err := p.ListenPacket("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		c, err := p.DialContext(context.Background(), "udp", srv.LocalAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("one"))
		c.Write([]byte("two"))
		buf := make([]byte, 64)
		for _, want := range []string{"one", "two"} {
			n, from, err := srv.ReadFrom(buf)
			if err != nil || string(buf[:n]) != want || from.String() != c.LocalAddr().String() {
				t.Errorf("ReadFrom = %q, %v, %v; want %q from %v", buf[:n], from, err, want, c.LocalAddr())
			}
		}

		// Another endpoint's datagram does not reach a connected one.
		other, err := p.ListenPacket("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		other.WriteTo([]byte("stray"), c.LocalAddr())
		srv.WriteTo([]byte("reply"), c.LocalAddr())
		if n, err := c.Read(buf); err != nil || string(buf[:n]) != "reply" {
			t.Errorf("Read = %q, %v; want the peer's reply", buf[:n], err)
		}

		// A full queue loses the datagram after it.
		for i := range packetQueue + 1 {
			srv.WriteTo([]byte{byte(i)}, c.LocalAddr())
		}
		got := 0
		start := time.Now()
		c.SetReadDeadline(start.Add(time.Hour))
		for {
			if _, err := c.Read(buf); err != nil {
				if !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != time.Hour {
					t.Errorf("Read past the deadline: %v after %v, want a deadline error after 1h", err, time.Since(start))
				}
				break
			}
			got++
		}
		if got != packetQueue {
			t.Errorf("%d datagrams read of %d sent at once, want the queue's %d", got, packetQueue+1, packetQueue)
		}

		// Nowhere to go: lost, and no error.
		if n, err := srv.WriteTo([]byte("lost"), &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}); n != 4 || err != nil {
			t.Errorf("WriteTo an address without an endpoint = %d, %v; want 4, nil", n, err)
		}
		srv.Close()
		if _, _, err := srv.ReadFrom(buf); !errors.Is(err, net.ErrClosed) {
			t.Errorf("ReadFrom after Close: %v, want net.ErrClosed", err)
		}
	})
}
