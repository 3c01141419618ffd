package ftp

import (
	"context"
	"io"
	"net"
	"net/textproto"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// TestDeadlineMidLine: a context deadline that expires while a reply line
// is half read is a timeout, not a malformed ("short") reply.
func TestDeadlineMidLine(t *testing.T) {
	addr := scripted(t, func(c net.Conn) {
		drip(c, "220 a greeting sent one byte a second\r\n", time.Second)
	}, nil)
	h := &Handler{}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	_, err := h.Fetch(ctx, req(t, "ftp://"+addr+"/f.bin"))
	if fetch.KindOf(err) != fetch.Timeout {
		t.Fatalf("greeting cut by the deadline: %v (kind %d), want Timeout", err, fetch.KindOf(err))
	}
}

// TestDeadlineBeforeFinalReply: the data arrived but the 226 did not when
// the context's deadline ran out: a timeout, not an incomplete transfer.
func TestDeadlineBeforeFinalReply(t *testing.T) {
	addr := scripted(t, nil, func(tp *textproto.Conn, verb, arg string) bool {
		switch verb {
		case "SIZE":
			tp.PrintfLine("213 4")
		case "EPSV":
			passive(tp, func(dc net.Conn) { dc.Write([]byte("data")) })
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
	// The deadline also covers the login and the transfer's set-up, which
	// must succeed: seven exchanges, each of which a busy machine may
	// delay by a few hundred ms.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := h.Fetch(ctx, req(t, "ftp://"+addr+"/f.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	_, err = io.ReadAll(res.Body)
	if fetch.KindOf(err) != fetch.Timeout {
		t.Fatalf("no 226 before the deadline: %v (kind %d), want Timeout", err, fetch.KindOf(err))
	}
}

// TestReplyBoundedWhole: without a deadline from the context, a reply
// dripped a byte at a time (each byte well within the idle timeout) fails
// once the idle timeout has passed for the whole reply: the greeting, and
// a multi-line reply later on.
func TestReplyBoundedWhole(t *testing.T) {
	greeting := "220-welcome\r\n" + strings.Repeat("220-a long banner line\r\n", 20) + "220 ready\r\n"
	pwd := "257-here\r\n" + strings.Repeat("257-more\r\n", 20) + "257 \"/\"\r\n"
	tests := []struct {
		name string
		addr string
	}{
		{"greeting", scripted(t, func(c net.Conn) { drip(c, greeting, 200*time.Millisecond) }, nil)},
		{"PWD", scripted(t, nil, func(tp *textproto.Conn, verb, arg string) bool {
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
		})},
	}
	for _, tt := range tests {
		h := &Handler{}
		r := req(t, "ftp://"+tt.addr+"/f.bin")
		r.IdleTimeout = time.Second
		start := time.Now()
		_, err := h.Fetch(context.Background(), r)
		h.Close()
		if fetch.KindOf(err) != fetch.Timeout {
			t.Errorf("%s dripped: %v (kind %d), want Timeout", tt.name, err, fetch.KindOf(err))
		}
		if d := time.Since(start); d > 8*time.Second {
			t.Errorf("%s dripped: failed after %v, want about the idle timeout (1s)", tt.name, d)
		}
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
