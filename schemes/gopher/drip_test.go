package gopher

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
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
// it a byte at a time is cut off, however short each wait. On pipes in a
// synctest bubble the drip and the timeout run on the bubble's clock: the
// cut comes exactly at the idle timeout.
func TestDrippedLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stop := make(chan struct{})
		long := "0A text item whose line never ends, sent one byte at a time " +
			"by a server that means to keep the connection for ever\tsel"
		p := new(fetchtest.Pipes)
		s := newPipeServer(t, p, map[string]respond{
			"/menu":  drip("1Dir\t/d\th\t70\r\n", long+long+long, stop),
			"/first": drip("", "3"+long+long, stop),
		})
		t.Cleanup(func() { close(stop) })
		c := pipeClient(p, &Handler{})
		for _, path := range []string{"1/menu", "9/first", "0/first"} {
			start := time.Now()
			_, _, err := getVia(t, c, "gopher://"+s.addr+"/"+path, 500*time.Millisecond)
			if d := time.Since(start); !errors.Is(err, fetch.Timeout) || d != 500*time.Millisecond {
				t.Errorf("%s dripped: %v (kind %v) after %v, want kind Timeout from the idle timeout, 500ms", path, err, fetch.KindOf(err), d)
			}
		}
	})
}

// TestControlCharacters checks that server text reaches the error and the
// trace with its control characters replaced.
func TestControlCharacters(t *testing.T) {
	evil := "\x1b]0;PWNED\x07\x1b[2J\xc2\x9b31m"
	s := newServer(t, map[string]respond{
		"/err":  send("3Gone" + evil + "\t\terror.host\t1\r\n.\r\n"),
		"/plus": send("+-1\r\n1 " + evil + "\r\ngone" + evil + "\r\n.\r\n"),
		"/hdr":  send("+1" + evil + "\r\nx"),
	})
	for _, path := range []string{"0/err", "0/plus%09%09+", "0/hdr%09%09!"} {
		var tr strings.Builder
		_, _, err := get(t, &Handler{}, "gopher://"+s.addr+"/"+path, func(r *fetch.Request) { r.Trace = fetch.NewTrace(&tr) })
		text := tr.String()
		if err != nil {
			text += err.Error()
		}
		if strings.ContainsAny(text, "\x1b\x07\u009b") {
			t.Errorf("%s: control characters reach the trace or the error:\n%q", path, text)
		}
	}
}

// TestReplyErrors checks that an error item and a Gopher+ error reach the
// caller as a *fetch.ReplyError holding the server's text.
func TestReplyErrors(t *testing.T) {
	s := newServer(t, map[string]respond{
		"/gone":   send("3Item not found: /gone\t\terror.host\t1\r\n.\r\n"),
		"/busy":   send("--2\r\n2 Admin <admin@example.org>\r\nLoad too high\r\n"),
		"/absent": send("--1\r\n1 Admin <admin@example.org>\r\nNo such item\r\n"),
	})
	for path, want := range map[string]fetch.ReplyError{
		"0/gone":          {Code: 0, Text: "Item not found: /gone"},
		"0/busy%09%09+":   {Code: 2, Text: "Load too high"},
		"0/absent%09%09+": {Code: 1, Text: "No such item"},
	} {
		_, _, err := get(t, &Handler{}, "gopher://"+s.addr+"/"+path, nil)
		var re *fetch.ReplyError
		if !errors.As(err, &re) || re.Code != want.Code || re.Text != want.Text {
			t.Errorf("%s: %v: ReplyError %+v, want %+v", path, err, re, want)
		}
	}
	if _, _, err := get(t, &Handler{}, "gopher://"+s.addr+"/0/busy%09%09+", nil); !errors.Is(err, fetch.Unavailable) {
		t.Errorf("Gopher+ error 2 (try again later): %v, want kind Unavailable", err)
	}
}

// TestCloseAbortsRead checks that Close, called while a Read waits for a
// server that sends nothing more, ends that Read at once. In a synctest
// bubble on pipes, the Read is known to be blocked (synctest.Wait), and
// "at once" is no time on the bubble's clock.
func TestCloseAbortsRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stop := make(chan struct{})
		p := new(fetchtest.Pipes)
		s := newPipeServer(t, p, map[string]respond{"/slow": drip("abc", "", stop)})
		t.Cleanup(func() { close(stop) })
		c := pipeClient(p, &Handler{})
		for _, path := range []string{"9/slow", "1/slow", "0/slow"} {
			u, _ := url.ParseLenient("gopher://" + s.addr + "/" + path)
			res, err := c.Do(context.Background(), &fetch.Request{URL: u, IdleTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := io.ReadAll(res.Body); done <- err }()
			synctest.Wait()
			start := time.Now()
			res.Body.Close()
			select {
			case <-done:
				if d := time.Since(start); d != 0 {
					t.Errorf("%s: the blocked Read ended %v after Close, want at once", path, d)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: Close did not abort the blocked Read", path)
			}
		}
	})
}
