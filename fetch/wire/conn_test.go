package wire

import (
	"context"
	"errors"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// silentServer accepts connections and never writes.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return ln.Addr().String()
}

func TestConnIdleTimeout(t *testing.T) {
	req := &fetch.Request{IdleTimeout: 50 * time.Millisecond}
	c, err := Dial(context.Background(), req, "tcp", silentServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Read(make([]byte, 1))
	if !errors.Is(err, fetch.Timeout) && fetch.KindOf(err) != fetch.Timeout {
		t.Errorf("Read from a silent server = %v (kind %v), want Timeout", err, fetch.KindOf(err))
	}
}

func TestConnWatchCancel(t *testing.T) {
	req := &fetch.Request{}
	c, err := Dial(context.Background(), req, "tcp", silentServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	stop := c.Watch(ctx)
	defer stop()
	errc := make(chan error, 1)
	go func() { _, err := c.Read(make([]byte, 1)); errc <- err }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) || fetch.KindOf(err) != fetch.Canceled {
		t.Errorf("Read after cancel = %v (kind %v), want context.Canceled, Kind Canceled", err, fetch.KindOf(err))
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Write after cancel = %v, want context.Canceled", err)
	}
}

func TestDialRefused(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	_, err := Dial(context.Background(), &fetch.Request{}, "tcp", addr)
	if !errors.Is(err, fetch.Connect) {
		t.Errorf("Dial to a closed port = %v, want Connect", err)
	}
}

// TestConnReplyTimeout: with SetReplyTimeout, reads from a server that
// sends a byte every 20 ms (each well within the idle timeout) fail once
// the bound has passed, as a Timeout naming it, and reads go on after the
// bound is lifted. On a pipe in a synctest bubble the drip and the bound
// run on the bubble's clock: the read fails exactly at the bound.
func TestConnReplyTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, server := net.Pipe()
		stop := make(chan struct{})
		done := make(chan struct{})
		defer func() { close(stop); server.Close(); <-done }()
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				if _, err := server.Write([]byte("x")); err != nil {
					return
				}
			}
		}()
		c := NewConn(client, 5*time.Second)
		defer c.Close()
		start := time.Now()
		c.SetReplyTimeout(200 * time.Millisecond)
		n := 0
		for {
			m, err := c.Read(make([]byte, 1))
			n += m
			if err != nil {
				if !errors.Is(err, fetch.Timeout) || !errors.Is(err, ErrReplyTimeout) || !errors.Is(err, context.DeadlineExceeded) || err.Error() != "timeout: no whole reply within 200ms" {
					t.Fatalf("Read past the bound = %v, want a Timeout: no whole reply within 200ms", err)
				}
				break
			}
			if time.Since(start) > 200*time.Millisecond {
				t.Fatalf("reads went on for %v past a limit of 200ms (%d bytes)", time.Since(start), n)
			}
		}
		if d := time.Since(start); d != 200*time.Millisecond {
			t.Errorf("Read failed after %v, want the limit, 200ms", d)
		}
		c.SetReplyTimeout(0)
		if _, err := c.Read(make([]byte, 1)); err != nil {
			t.Errorf("Read after the limit was lifted = %v, want a byte", err)
		}
	})
}

// A *Conn from Dial lets the Client's policy judge a pooled connection
// again (Request.CheckReuse finds the dialed address beneath it), and
// TCPConn find the socket.
func TestConnUnwraps(t *testing.T) {
	req := &fetch.Request{}
	c, err := Dial(context.Background(), req, "tcp", silentServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := TCPConn(c); !ok {
		t.Error("TCPConn found no socket under a *Conn")
	}
	deny := &fetch.Client{Policy: fetch.Policy{DenyPrivate: true}}
	deny.Register("http", fetch.HandlerFunc(func(ctx context.Context, r *fetch.Request) (*fetch.Resource, error) {
		return nil, r.CheckReuse(c)
	}))
	if _, err := deny.Fetch(context.Background(), "http://127.0.0.1/"); !errors.Is(err, fetch.Refused) {
		t.Errorf("CheckReuse of a loopback *Conn under DenyPrivate: %v, want Refused", err)
	}
}
