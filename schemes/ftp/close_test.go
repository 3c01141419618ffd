package ftp

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/textproto"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestCloseWhileReading: Close from another goroutine aborts a Read
// blocked on the data connection, and one blocked waiting for the final
// reply, at once; the Read returns an error, never io.EOF. On pipes in a
// synctest bubble the Read is known to be blocked (synctest.Wait) before
// Close, and "at once" is no time on the bubble's clock.
func TestCloseWhileReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		s := newFakeServer(t)
		s.pipes = p
		s.files["/held.bin"] = bytes.Repeat([]byte("h"), 1000)
		release := make(chan int)
		defer close(release)
		s.hold["/held.bin"] = release
		s.start()
		no226 := scriptedPipes(t, p, nil, func(tp *textproto.Conn, verb, arg string) bool {
			switch verb {
			case "SIZE":
				tp.PrintfLine("550 unknown")
			case "EPSV":
				passiveOn(p, tp, func(dc net.Conn) { dc.Write([]byte("data")) })
			case "RETR":
				tp.PrintfLine("150 here it comes") // and no 226
			default:
				return false
			}
			return true
		})
		for _, u := range []string{"ftp://" + s.addr() + "/held.bin", "ftp://" + no226 + "/f.bin"} {
			h := &Handler{}
			res, err := pipeClient(p, h).Do(context.Background(), req(t, u))
			if err != nil {
				t.Fatalf("%s: %v", u, err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := io.ReadAll(res.Body)
				done <- err
			}()
			synctest.Wait() // the Read is blocked
			start := time.Now()
			if err := res.Body.Close(); err != nil {
				t.Errorf("%s: Close: %v", u, err)
			}
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("%s: the Read Close aborted succeeded", u)
				}
				if d := time.Since(start); d != 0 {
					t.Errorf("%s: the Read returned %v after Close, want at once", u, d)
				}
			case <-time.After(8 * time.Second):
				t.Fatalf("%s: Close did not abort the blocked Read", u)
			}
			res.Body.Close()
			h.Close()
		}
	})
}
