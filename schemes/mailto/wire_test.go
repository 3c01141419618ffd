package mailto

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// rawRelay is a minimal SMTP relay that sends on data the raw bytes of
// each message's DATA phase, up to and including the final ".".
func rawRelay(t *testing.T) (addr string, data <-chan string) {
	t.Helper()
	ch := make(chan string, 1)
	addr = fetchtest.Serve(t, func(c net.Conn) {
		c.SetDeadline(time.Now().Add(20 * time.Second))
		r := bufio.NewReader(c)
		c.Write([]byte("220 raw relay\r\n"))
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			switch cmd := strings.ToUpper(strings.TrimSpace(line)); {
			case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
				c.Write([]byte("250 raw\r\n"))
			case cmd == "DATA":
				c.Write([]byte("354 go on\r\n"))
				var b strings.Builder
				for !strings.HasSuffix(b.String(), "\r\n.\r\n") {
					c, err := r.ReadByte()
					if err != nil {
						return
					}
					b.WriteByte(c)
				}
				ch <- b.String()
				c.Write([]byte("250 queued\r\n"))
			case cmd == "QUIT":
				c.Write([]byte("221 bye\r\n"))
				return
			default:
				c.Write([]byte("250 ok\r\n"))
			}
		}
	})
	return addr, ch
}

// TestNoSmuggling checks that every line end of the message reaches the
// wire as CR LF, a lone CR and a lone LF alike, and that the dots of every
// line a relay sees are stuffed: a bare CR cannot end the DATA early.
func TestNoSmuggling(t *testing.T) {
	addr, data := rawRelay(t)
	h := &Handler{Relay: addr, Hello: "client.test", From: "me@client.test"}
	msg := "Subject: x\r\n\r\nline1\r.\r\nMAIL FROM:<evil@x>\rline3\n.dot\nend\r"
	if _, err := send(t, h, "mailto:joe@example.com", msg, nil); err != nil {
		t.Fatalf("send: %v", err)
	}
	got := <-data
	_, body, _ := strings.Cut(got, "\r\n\r\n")
	want := "line1\r\n..\r\nMAIL FROM:<evil@x>\r\nline3\r\n..dot\r\nend\r\n.\r\n"
	if body != want {
		t.Errorf("the wire carried the body %q, want %q", body, want)
	}
	if strings.Count(got, "\r") != strings.Count(got, "\n") || strings.Contains(got, "\r\r") {
		t.Errorf("a bare CR or LF reached the wire: %q", got)
	}
}

// TestCRLFWriterSplit checks that a CR LF split across two writes stays
// one line end.
func TestCRLFWriterSplit(t *testing.T) {
	var b strings.Builder
	w := &crlfWriter{w: &b}
	for _, p := range []string{"a\r", "\nb\r", "c\n", "\r", "\r", "\n"} {
		w.Write([]byte(p))
	}
	if want := "a\r\nb\r\nc\r\n\r\n\r\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

// TestReplyBounded checks that a greeting dripped a byte at a time fails
// once the whole reply has taken the idle timeout, not only each byte. On
// pipes in a synctest bubble, the drip runs on the bubble's clock.
func TestReplyBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(fetchtest.Pipes)
		addr := p.Serve(t, func(c net.Conn) {
			for _, b := range []byte(strings.Repeat("220-slow greeting\r\n", 100)) {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
		c := &fetch.Client{DialContext: p.DialContext}
		c.Register("mailto", &Handler{Relay: addr, Hello: "client.test", From: "me@client.test"})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		req := &fetch.Request{URL: parse(t, "mailto:joe@example.com"), Message: strings.NewReader("hi\n"), IdleTimeout: 500 * time.Millisecond}
		start := time.Now()
		_, err := c.Do(ctx, req)
		if fetch.KindOf(err) != fetch.Timeout || ctx.Err() != nil {
			t.Errorf("Fetch from a dripping relay: %v, want Kind Timeout before the context's end", err)
		}
		// The bound is looked at as each read starts: the reply fails
		// with the first byte past it, one drip (20ms) after.
		if d := time.Since(start); d <= 500*time.Millisecond || d > 520*time.Millisecond {
			t.Errorf("the dripped greeting failed after %v, want the first byte past the idle timeout (500ms), at most 20ms later", d)
		}
	})
}

// TestServiceUnavailable checks that a relay answering 421 is Unavailable,
// with the reply as a ReplyError.
func TestServiceUnavailable(t *testing.T) {
	addr := fetchtest.Serve(t, func(c net.Conn) {
		c.Write([]byte("421 too busy, come back later\r\n"))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		bufio.NewReader(c).ReadString('\n')
	})
	h := &Handler{Relay: addr, Hello: "client.test", From: "me@client.test"}
	_, err := send(t, h, "mailto:joe@example.com", "hi\n", nil)
	var re *fetch.ReplyError
	if fetch.KindOf(err) != fetch.Unavailable || !errors.As(err, &re) || re.Code != 421 {
		t.Errorf("a 421 greeting: %v, want Kind Unavailable with a ReplyError 421", err)
	}
}

// TestTraceEscapesServerText checks that the trace shows a relay's control
// characters escaped.
func TestTraceEscapesServerText(t *testing.T) {
	addr := fetchtest.Serve(t, func(c net.Conn) {
		c.Write([]byte("554 \x1b]0;PWNED\x07 go away\r\n"))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		bufio.NewReader(c).ReadString('\n')
	})
	var trace strings.Builder
	h := &Handler{Relay: addr, Hello: "client.test", From: "me@client.test"}
	_, err := send(t, h, "mailto:joe@example.com", "hi\n", &trace)
	if err == nil {
		t.Fatal("a 554 greeting: no error")
	}
	for _, s := range []string{trace.String(), err.Error()} {
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("server text printed raw: %q", s)
		}
	}
}
