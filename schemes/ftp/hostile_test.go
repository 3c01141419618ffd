package ftp

import (
	"context"
	"io"
	"net"
	"net/textproto"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestDeadlineMidLine: a context deadline that expires while a reply line
// is half read is a timeout, not a malformed ("short") reply. On pipes in
// a bubble the drip and the deadline run on the bubble's clock.
func TestDeadlineMidLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		addr := scriptedPipes(t, p, func(c net.Conn) {
			drip(c, "220 a greeting sent one byte a second\r\n", time.Second)
		}, nil)
		h := &Handler{}
		defer h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := pipeClient(p, h).Do(ctx, req(t, "ftp://"+addr+"/f.bin"))
		if fetch.KindOf(err) != fetch.Timeout {
			t.Fatalf("greeting cut by the deadline: %v (kind %d), want Timeout", err, fetch.KindOf(err))
		}
		if d := time.Since(start); d != 2500*time.Millisecond {
			t.Errorf("greeting cut after %v, want the deadline, 2.5s", d)
		}
	})
}

// TestDeadlineBeforeFinalReply: the data arrived but the 226 did not when
// the context's deadline ran out: a timeout, not an incomplete transfer.
func TestDeadlineBeforeFinalReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		addr := scriptedPipes(t, p, nil, func(tp *textproto.Conn, verb, arg string) bool {
			switch verb {
			case "SIZE":
				tp.PrintfLine("213 4")
			case "EPSV":
				passiveOn(p, tp, func(dc net.Conn) { dc.Write([]byte("data")) })
			case "RETR":
				tp.PrintfLine("150 here it comes")
				// ... and no 226.
			default:
				return false
			}
			return true
		})
		h := &Handler{}
		defer h.Close()
		// The deadline also covers the login and the transfer's set-up,
		// which take no time on the bubble's clock.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		start := time.Now()
		res, err := pipeClient(p, h).Do(ctx, req(t, "ftp://"+addr+"/f.bin"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if fetch.KindOf(err) != fetch.Timeout || string(b) != "data" {
			t.Fatalf("no 226 before the deadline: %q, %v (kind %d), want the data and Timeout", b, err, fetch.KindOf(err))
		}
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("the wait for the 226 ended after %v, want the deadline, 5s", d)
		}
	})
}

// TestReplyBoundedWhole: without a deadline from the context, a reply
// dripped a byte at a time (each byte well within the idle timeout) fails
// once the idle timeout has passed for the whole reply: the greeting, and
// a multi-line reply later on. On the bubble's clock the login's
// exchanges take no time, so the reply fails exactly at the idle timeout.
func TestReplyBoundedWhole(t *testing.T) {
	greeting := "220-welcome\r\n" + strings.Repeat("220-a long banner line\r\n", 20) + "220 ready\r\n"
	pwd := "257-here\r\n" + strings.Repeat("257-more\r\n", 20) + "257 \"/\"\r\n"
	tests := []struct {
		name   string
		greet  func(c net.Conn)
		answer func(tp *textproto.Conn, verb, arg string) bool
	}{
		{"greeting", func(c net.Conn) { drip(c, greeting, 200*time.Millisecond) }, nil},
		{"PWD", nil, func(tp *textproto.Conn, verb, arg string) bool {
			if verb != "PWD" {
				return false
			}
			for i := 0; i < len(pwd); i++ {
				tp.W.WriteByte(pwd[i])
				if tp.W.Flush() != nil {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			return true
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := new(fetchtest.Pipes)
				addr := scriptedPipes(t, p, tt.greet, tt.answer)
				h := &Handler{}
				defer h.Close()
				r := req(t, "ftp://"+addr+"/f.bin")
				r.IdleTimeout = time.Second
				start := time.Now()
				_, err := pipeClient(p, h).Do(context.Background(), r)
				if fetch.KindOf(err) != fetch.Timeout {
					t.Errorf("%s dripped: %v (kind %d), want Timeout", tt.name, err, fetch.KindOf(err))
				}
				if d := time.Since(start); d != time.Second {
					t.Errorf("%s dripped: failed after %v, want the idle timeout (1s)", tt.name, d)
				}
			})
		})
	}
}

// TestServerTextEscaped: control characters in a reply (a 530 that would
// retitle the terminal and clear the screen) reach neither the error nor
// the trace.
func TestServerTextEscaped(t *testing.T) {
	evil := "Login incorrect \x1b]0;PWNED\x07 \x1b[2J gone"
	addr := scripted(t, nil, func(tp *textproto.Conn, verb, arg string) bool {
		if verb != "PASS" {
			return false
		}
		tp.PrintfLine("530 %s", evil)
		return true
	})
	h := &Handler{}
	defer h.Close()
	var trace strings.Builder
	r := req(t, "ftp://bob:pw@"+addr+"/f.bin")
	r.Trace = fetch.NewTrace(&trace)
	_, _, err := get(t, h, r)
	if fetch.KindOf(err) != fetch.Auth {
		t.Fatalf("530: %v, want Auth", err)
	}
	for what, s := range map[string]string{"error": err.Error(), "trace": trace.String()} {
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("the %s holds the server's control characters: %q", what, s)
		}
		if !strings.Contains(s, "PWNED") {
			t.Errorf("the %s lost the server's text: %q", what, s)
		}
	}
}

// TestURLTextEscaped: a name decoded from the URL holding control
// characters is sent as it is, but shown escaped in the trace and errors.
func TestURLTextEscaped(t *testing.T) {
	s := newFakeServer(t)
	s.start()
	h := &Handler{}
	defer h.Close()
	var trace strings.Builder
	r := req(t, "ftp://"+s.addr()+"/x%1B%5D0%3BPWNED%07.bin")
	r.Trace = fetch.NewTrace(&trace)
	_, _, err := get(t, h, r)
	if fetch.KindOf(err) != fetch.NotFound {
		t.Fatalf("%v, want NotFound", err)
	}
	for what, s := range map[string]string{"error": err.Error(), "trace": trace.String()} {
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("the %s holds control characters: %q", what, s)
		}
	}
	if got := s.commands(); len(got) != 1 || !slices.Contains(got[0], "RETR x\x1b]0;PWNED\x07.bin") {
		t.Errorf("the name was not sent as decoded: %q", got)
	}
}
