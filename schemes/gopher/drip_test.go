package gopher

import (
	"bufio"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// drip answers with head at once, then with tail one byte at a time, each
// well within the idle timeout, and then holds the connection open.
func drip(head, tail string, stop <-chan struct{}) respond {
	return func(c net.Conn, _ *bufio.Reader, _ string) {
		io.WriteString(c, head)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if i < len(tail) {
				if _, err := c.Write([]byte{tail[i]}); err != nil {
					return
				}
				i++
			}
		}
	}
}

// TestDrippedLines checks that a menu line, and the first line of any
// reply, must arrive whole within the idle timeout: a server that sends
// it a byte at a time is cut off, however short each wait.
func TestDrippedLines(t *testing.T) {
	stop := make(chan struct{})
	long := "0A text item whose line never ends, sent one byte at a time " +
		"by a server that means to keep the connection for ever\tsel"
	s := newServer(t, map[string]respond{
		"/menu":  drip("1Dir\t/d\th\t70\r\n", long+long+long, stop),
		"/first": drip("", "3"+long+long, stop),
	})
	t.Cleanup(func() { close(stop) })
	idle := func(r *fetch.Request) { r.IdleTimeout = 500 * time.Millisecond }
	for _, path := range []string{"1/menu", "9/first", "0/first"} {
		start := time.Now()
		_, _, err := get(t, &Handler{}, "gopher://"+s.addr+"/"+path, idle)
		// The test's own deadline is 20 s; the idle timeout must end it long
		// before.
		if !errors.Is(err, fetch.Timeout) || time.Since(start) > 10*time.Second {
			t.Errorf("%s dripped: %v (kind %v) after %v, want kind Timeout from the idle timeout", path, err, fetch.KindOf(err), time.Since(start))
		}
	}
}
