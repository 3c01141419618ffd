package http

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// copyToFile fetches u with h and copies its body to a new file through
// io.Copy, as the CLI does; it returns the file's bytes, whether the
// socket was handed to the file, and the copy's error.
func copyToFile(t *testing.T, h *Handler, u string, idle time.Duration) ([]byte, bool, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := h.Fetch(ctx, &fetch.Request{URL: parse(t, u), IdleTimeout: idle})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	return fetchtest.CopyToFile(t, res.Body, nil)
}

// TestH1Splice: a body framed by Content-Length goes from the socket to an
// output file by the file's ReadFrom, whole, and the connection serves
// the next request; a body cut short is Incomplete; a body that stops
// coming is a Timeout within about the idle time, while one that comes
// slowly, never idle that long, completes.
func TestH1Splice(t *testing.T) {
	big := make([]byte, 2*(4<<20)+12345)
	for i := range big {
		big[i] = byte(i * 7)
	}
	base, accepted := exchangeServer(t, func(r *http.Request) string {
		return "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(big)) + "\r\n\r\n" + string(big)
	}, nil)
	h := &Handler{}
	defer h.Close()
	for i := range 2 {
		got, spliced, err := copyToFile(t, h, base+"/big", time.Minute)
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("request %d: %v; %d bytes, want the %d sent", i, err, len(got), len(big))
		}
		if !spliced {
			t.Errorf("request %d: the file's ReadFrom never got the socket", i)
		}
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("two spliced bodies took %d connections, want 1", n)
	}

	// Cut short, stalled, slow.
	addr := fetchtest.Serve(t, func(c net.Conn) {
		br := make([]byte, 4096)
		n, _ := c.Read(br)
		path := string(bytes.Fields(br[:n])[1])
		body := bytes.Repeat([]byte("0123456789abcdef"), 64) // 1 KiB
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(2*len(body))+"\r\n\r\n")
		switch path {
		case "/cut":
			c.Write(body)
		case "/stall":
			c.Write(body)
			io.Copy(io.Discard, c) // until the client gives up and closes
		case "/slow":
			for i := 0; i < 2*len(body); i += 64 {
				time.Sleep(40 * time.Millisecond) // 32 drips: about 1.3 s
				c.Write(append(body, body...)[i : i+64])
			}
		}
	})
	tests := []struct {
		path string
		kind fetch.Kind
		says string // what the error says, as a Read of the body says it
	}{
		{"/cut", fetch.Incomplete, "the connection ended after 1024 bytes of the body"},
		{"/stall", fetch.Timeout, "reading the body: nothing for 500ms"},
		{"/slow", 0, ""},
	}
	for _, tt := range tests {
		start := time.Now()
		got, spliced, err := copyToFile(t, h, "http://"+addr+tt.path, 500*time.Millisecond)
		if fetch.KindOf(err) != tt.kind || (err == nil) != (tt.kind == 0) {
			t.Errorf("%s: %v (kind %d), want kind %d", tt.path, err, fetch.KindOf(err), tt.kind)
		}
		if err != nil && !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %q, want it to say %q", tt.path, err, tt.says)
		}
		if !spliced {
			t.Errorf("%s: the file's ReadFrom never got the socket", tt.path)
		}
		if tt.kind == 0 && len(got) != 2048 {
			t.Errorf("%s: %d bytes, want 2048", tt.path, len(got))
		}
		if tt.kind == fetch.Timeout && time.Since(start) > 3500*time.Millisecond {
			t.Errorf("%s: the stall took %v to end, with an idle time of 0.5 s", tt.path, time.Since(start))
		}
	}
}
