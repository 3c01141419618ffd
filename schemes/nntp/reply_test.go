package nntp

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/fetch/wire"
)

// TestDrippedGreeting checks that a greeting dripped a byte at a time
// fails once the whole reply has taken the idle timeout, not only each
// byte. On pipes in a synctest bubble, it fails exactly then.
func TestDrippedGreeting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		addr := p.Serve(t, func(c net.Conn) {
			for _, b := range []byte("200 " + strings.Repeat("slow ", 1000) + "\r\n") {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
		c := pipeClient(p, newHandler(t, addr))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		_, err := c.Do(ctx, &fetch.Request{URL: parse(t, "news:one@example.org"), IdleTimeout: 500 * time.Millisecond})
		if fetch.KindOf(err) != fetch.Timeout || !errors.Is(err, wire.ErrReplyTimeout) || ctx.Err() != nil {
			t.Errorf("Fetch from a dripping server: %v, want the whole reply's Timeout before the context's end", err)
		}
		if d := time.Since(start); d != 500*time.Millisecond {
			t.Errorf("the dripped greeting failed after %v, want the idle timeout, 500ms", d)
		}
	})
}

// TestTraceEscapesServerText checks that the -v trace shows the server's
// control characters escaped.
func TestTraceEscapesServerText(t *testing.T) {
	f := newServer(t)
	f.greeting = "200 \x1b]0;PWNED\x07 welcome \x1b[2J"
	h := newHandler(t, f.start(nil))
	var trace strings.Builder
	if _, _, err := get(t, h, "news:one@example.org", func(r *fetch.Request) { r.Trace = fetch.NewTrace(&trace) }); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(trace.String(), "\x1b\x07") || !strings.Contains(trace.String(), `\x1b]0;PWNED\x07`) {
		t.Errorf("trace:\n%q\nwant the greeting's controls escaped", trace.String())
	}
}
