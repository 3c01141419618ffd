package fetch

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/url"
)

// TestTiming: a request's dial marks the lookup and the connection, each
// Follow counts a redirect, and Body marks the first byte and the end and
// counts the bytes.
func TestTiming(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	u, _ := url.Parse("http://" + ln.Addr().String() + "/")
	tm := NewTiming()
	req := &Request{URL: u, Timing: tm}
	if r := tm.Report(); r.Connect != 0 || r.NameLookup != 0 || r.Redirects != 0 {
		t.Errorf("before any dial: %+v", r)
	}
	c, err := req.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	hop := req.follow(u)
	hop.follow(u)
	body := tm.Body(io.NopCloser(strings.NewReader("hello")))
	if n, err := io.Copy(io.Discard, body); n != 5 || err != nil {
		t.Fatalf("read %d, %v", n, err)
	}
	body.Close()
	r := tm.Report()
	if tm.lookup.IsZero() || tm.connect.IsZero() || tm.first.IsZero() || tm.finish.IsZero() {
		t.Errorf("a phase was not marked: %+v", tm)
	}
	if r.NameLookup < 0 || r.Connect < r.NameLookup || r.StartTransfer < r.Connect || r.Total < r.StartTransfer {
		t.Errorf("phases out of order: %+v", r)
	}
	if r.Redirects != 2 || r.Bytes != 5 {
		t.Errorf("Redirects %d, Bytes %d; want 2 and 5", r.Redirects, r.Bytes)
	}
	if again := tm.Report(); again != r {
		t.Errorf("a finished body's report changed: %+v then %+v", r, again)
	}
	// A nil Timing records nothing and wraps nothing.
	var none *Timing
	if none.Body(body) != body || none.Report() != (TimingReport{}) {
		t.Error("a nil Timing did something")
	}
	(&Request{URL: u}).follow(u) // no Timing: no panic
}
