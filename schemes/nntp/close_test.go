package nntp

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// stallingServer answers GROUP with one article, and ARTICLE with the
// first lines of an article and then nothing more, never the final ".";
// it counts connections. It listens on p, a network in memory for a test
// in a synctest bubble; nil p means on 127.0.0.1.
func stallingServer(t *testing.T, p *fetchtest.Pipes) (string, *atomic.Int32) {
	var conns atomic.Int32
	serve := fetchtest.Serve
	if p != nil {
		serve = p.Serve
	}
	addr := serve(t, func(c net.Conn) {
		conns.Add(1)
		r := bufio.NewReader(c)
		c.Write([]byte("200 stalling server\r\n"))
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			switch f := strings.Fields(line); strings.ToUpper(f[0]) {
			case "GROUP":
				c.Write([]byte("211 1 1 1 " + f[1] + "\r\n"))
			case "CAPABILITIES":
				c.Write([]byte("101 caps\r\nVERSION 2\r\nREADER\r\n.\r\n"))
			case "ARTICLE":
				c.Write([]byte("220 0 <a@b> article\r\nSubject: x\r\n\r\nfirst line\r\n"))
				io.Copy(io.Discard, r) // until the client closes
				return
			default:
				c.Write([]byte("500 what?\r\n"))
			}
		}
	})
	return addr, &conns
}

// TestCloseStalledBody checks that closing a body whose reply stalls
// returns after drainTime rather than after the idle timeout, and drops
// the connection instead of pooling it. On pipes in a synctest bubble,
// the wait is exactly drainTime of the bubble's clock.
func TestCloseStalledBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		addr, conns := stallingServer(t, p)
		c := pipeClient(p, newHandler(t, addr))
		for i := 0; i < 2; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			res, err := c.Do(ctx, &fetch.Request{URL: parse(t, "news:a@b"), IdleTimeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res.Body.Close()
			if d := time.Since(start); d != drainTime {
				t.Errorf("Close took %v, want drainTime (%v)", d, drainTime)
			}
			cancel()
		}
		if n := conns.Load(); n != 2 {
			t.Errorf("%d connections, want 2: a stalled connection went back to the pool", n)
		}
	})
}

// TestCloseAbortsRead checks that Close called while a Read waits on a
// stalled reply ends that Read promptly.
//
// In a synctest bubble on pipes, the kit's waits take no time.
func TestCloseAbortsRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		addr, _ := stallingServer(t, p)
		c := pipeClient(p, newHandler(t, addr))
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res, err := c.Do(ctx, &fetch.Request{URL: parse(t, "news:a@b"), IdleTimeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		fetchtest.CloseAbortsRead(t, res.Body)
	})
}
