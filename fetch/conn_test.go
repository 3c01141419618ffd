package fetch

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
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
	req := &Request{IdleTimeout: 50 * time.Millisecond}
	c, err := req.Dial(context.Background(), "tcp", silentServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Read(make([]byte, 1))
	if !errors.Is(err, Timeout) && KindOf(err) != Timeout {
		t.Errorf("Read from a silent server = %v (kind %v), want Timeout", err, KindOf(err))
	}
}

func TestConnWatchCancel(t *testing.T) {
	req := &Request{}
	c, err := req.Dial(context.Background(), "tcp", silentServer(t))
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
	if err := <-errc; !errors.Is(err, context.Canceled) || KindOf(err) != Canceled {
		t.Errorf("Read after cancel = %v (kind %v), want context.Canceled, Kind Canceled", err, KindOf(err))
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Write after cancel = %v, want context.Canceled", err)
	}
}

func TestDialRefused(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	_, err := (&Request{}).Dial(context.Background(), "tcp", addr)
	if !errors.Is(err, Connect) {
		t.Errorf("Dial to a closed port = %v, want Connect", err)
	}
}

// TestConnReplyTimeout: with SetReplyTimeout, reads from a server that
// sends a byte every 20 ms (each well within the idle timeout) fail once
// the bound has passed, as a Timeout naming it, and reads go on after the
// bound is lifted.
func TestConnReplyTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		s, err := ln.Accept()
		if err != nil {
			return
		}
		defer s.Close()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := s.Write([]byte("x")); err != nil {
				return
			}
		}
	}()
	c, err := (&Request{IdleTimeout: 5 * time.Second}).Dial(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	c.SetReplyTimeout(200 * time.Millisecond)
	n := 0
	for {
		m, err := c.Read(make([]byte, 1))
		n += m
		if err != nil {
			if !errors.Is(err, Timeout) || !errors.Is(err, ErrReplyTimeout) || !errors.Is(err, context.DeadlineExceeded) || err.Error() != "timeout: no whole reply within 200ms" {
				t.Fatalf("Read past the bound = %v, want a Timeout: no whole reply within 200ms", err)
			}
			break
		}
		if time.Since(start) > 3*time.Second {
			t.Fatalf("reads went on for %v past a limit of 200ms (%d bytes)", time.Since(start), n)
		}
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("Read failed after %v, before the limit of 200ms", d)
	}
	c.SetReplyTimeout(0)
	if _, err := c.Read(make([]byte, 1)); err != nil {
		t.Errorf("Read after the limit was lifted = %v, want a byte", err)
	}
}
