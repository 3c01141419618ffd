package ftp

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/textproto"
	"testing"
	"time"
)

// TestCloseWhileReading: Close from another goroutine aborts a Read
// blocked on the data connection, and one blocked waiting for the final
// reply, at once; the Read returns an error, never io.EOF.
func TestCloseWhileReading(t *testing.T) {
	s := newFakeServer(t)
	s.files["/held.bin"] = bytes.Repeat([]byte("h"), 1000)
	release := make(chan int)
	defer close(release)
	s.hold["/held.bin"] = release
	s.start()
	no226 := scripted(t, nil, func(tp *textproto.Conn, verb, arg string) bool {
		switch verb {
		case "SIZE":
			tp.PrintfLine("550 unknown")
		case "EPSV":
			passive(tp, func(dc net.Conn) { dc.Write([]byte("data")) })
		case "RETR":
			tp.PrintfLine("150 here it comes") // and no 226
		default:
			return false
		}
		return true
	})
	for _, u := range []string{"ftp://" + s.addr() + "/held.bin", "ftp://" + no226 + "/f.bin"} {
		h := &Handler{}
		res, err := h.Fetch(context.Background(), req(t, u))
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := io.ReadAll(res.Body)
			done <- err
		}()
		time.Sleep(300 * time.Millisecond) // let the Read block
		start := time.Now()
		if err := res.Body.Close(); err != nil {
			t.Errorf("%s: Close: %v", u, err)
		}
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: the Read Close aborted succeeded", u)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("%s: the Read returned %v after Close", u, d)
			}
		case <-time.After(8 * time.Second):
			t.Fatalf("%s: Close did not abort the blocked Read", u)
		}
		res.Body.Close()
		h.Close()
	}
}
