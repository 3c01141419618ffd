package gopher

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

// copyToFile fetches raw with h and copies the body to a new file with
// fetchtest.CopyToFile (onSocket sees the socket); it returns the file's
// bytes, whether the file's ReadFrom got the socket, and the copy's error.
func copyToFile(t *testing.T, h *Handler, raw string, mod func(*fetch.Request), onSocket func(*net.TCPConn)) ([]byte, bool, error) {
	t.Helper()
	res, err := fetchItem(t, h, raw, mod)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	defer res.Body.Close()
	return fetchtest.CopyToFile(t, res.Body, onSocket)
}

// TestSpliceToFile checks that io.Copy of an item read until the server
// closes, or to the size a Gopher+ header gave, hands the output file the
// socket itself, chunk after chunk, with the bytes the session had already
// buffered first; and that Read's rules hold: the bytes exact, a Gopher+
// item cut short or a reset connection an error of Kind Incomplete, bytes
// past a Gopher+ size not delivered.
func TestSpliceToFile(t *testing.T) {
	big := binary(2*(4<<20) + 12345)
	sized := binary(1<<20 + 7)
	s := newServer(t, map[string]respond{
		"/big.bin":   send(string(big)),
		"/ok.bin":    send("ok"),
		"/sized.bin": send("+" + strconv.Itoa(len(sized)) + "\r\n" + string(sized)),
		"/more.bin":  send("+" + strconv.Itoa(len(sized)) + "\r\n" + string(sized) + "and then some"),
		"/close.bin": send("+-2\r\n" + string(sized)),
		"/cut.bin":   send("+" + strconv.Itoa(len(sized)+1) + "\r\n" + string(sized)),
		"/reset.bin": reset(string(big[:1<<20])),
	})
	tests := []struct {
		path    string
		want    []byte
		kind    fetch.Kind
		spliced bool
	}{
		{"9/big.bin", big, 0, true},
		{"9/ok.bin", []byte("ok"), 0, false},
		{"9/sized.bin%09%09+", sized, 0, true},
		{"9/more.bin%09%09+", sized, 0, true},
		{"9/close.bin%09%09+", sized, 0, true},
		{"9/cut.bin%09%09+", nil, fetch.Incomplete, true},
		{"9/reset.bin", nil, fetch.Incomplete, false},
	}
	for _, tt := range tests {
		got, spliced, err := copyToFile(t, &Handler{}, "gopher://"+s.addr+"/"+tt.path, nil, nil)
		if fetch.KindOf(err) != tt.kind {
			t.Errorf("%s: %v (kind %v), want kind %v", tt.path, err, fetch.KindOf(err), tt.kind)
		}
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			t.Errorf("%s: %v: the connection's failure is told as the output file's", tt.path, err)
		}
		if tt.spliced && !spliced {
			t.Errorf("%s: the file's ReadFrom never got the socket", tt.path)
		}
		if tt.kind == 0 && !bytes.Equal(got, tt.want) {
			t.Errorf("%s: the file holds %d bytes that differ from the %d sent", tt.path, len(got), len(tt.want))
		}
	}
}

// TestSpliceKeepsText checks that text, menus and gophers items are not
// spliced: their ends are looked for in the bytes (or TLS is between).
func TestSpliceKeepsText(t *testing.T) {
	text := "a line\r\n..stuffed\r\n.\r\n"
	s := newServer(t, map[string]respond{"/t": send(text)})
	for _, path := range []string{"0/t", "1/t"} {
		got, spliced, err := copyToFile(t, &Handler{}, "gopher://"+s.addr+"/"+path, nil, nil)
		if err != nil || spliced || string(got) != "a line\r\n.stuffed\r\n" {
			t.Errorf("%s: %q, spliced %v, %v; want the text unstuffed, not spliced", path, got, spliced, err)
		}
	}
}

// TestSpliceSizedServerStays checks that a Gopher+ item whose server
// keeps the connection open after the announced bytes ends with its last
// byte, not with the idle timeout: the low mark on the socket never asks
// for more than the item has left.
func TestSpliceSizedServerStays(t *testing.T) {
	release := make(chan struct{})
	routes := map[string]respond{}
	sizes := []int{100, 300 << 10, 2<<20 + 5}
	for _, n := range sizes {
		data := binary(n)
		routes["/"+strconv.Itoa(n)] = func(c net.Conn, _ *bufio.Reader, _ string) {
			// All but the last 1000 bytes, a pause, the rest, and
			// the connection stays.
			io.WriteString(c, "+"+strconv.Itoa(n)+"\r\n")
			c.Write(data[:max(n-1000, 0)])
			time.Sleep(200 * time.Millisecond)
			c.Write(data[max(n-1000, 0):])
			<-release
		}
	}
	s := newServer(t, routes)
	t.Cleanup(func() { close(release) }) // before the server's cleanup waits
	for _, n := range sizes {
		data := binary(n)
		done := make(chan struct{})
		var got []byte
		var spliced bool
		var err error
		go func() {
			defer close(done)
			got, spliced, err = copyToFile(t, &Handler{}, "gopher://"+s.addr+"/9/"+strconv.Itoa(n)+"%09%09+", func(r *fetch.Request) { r.IdleTimeout = time.Minute }, nil)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d bytes: the copy did not end with the item's last byte", n)
		}
		if err != nil || !bytes.Equal(got, data) || n > 1<<20 && !spliced {
			t.Errorf("%d bytes: %d bytes, spliced %v, %v; want the item", n, len(got), spliced, err)
		}
	}
}

// hold answers with head, then sends nothing more until release is
// closed.
func hold(head []byte, release <-chan struct{}) respond {
	return func(c net.Conn, _ *bufio.Reader, _ string) {
		c.Write(head)
		<-release
	}
}

// TestSpliceStalls checks that a splice waits for the server no longer
// than the idle timeout (Kind Timeout), that cancelling the context or
// closing the body ends it at once, and that a slow server that keeps
// sending is not taken for a stalled one.
func TestSpliceStalls(t *testing.T) {
	release := make(chan struct{})
	head := binary(200 << 10)
	slow := func(c net.Conn, _ *bufio.Reader, _ string) {
		// One byte each 50 ms for twice the idle timeout below.
		for i := 0; i < 30; i++ {
			if _, err := c.Write([]byte{byte(i)}); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	s := newServer(t, map[string]respond{"/held.bin": hold(head, release), "/slow.bin": slow})
	t.Cleanup(func() { close(release) }) // before the server's cleanup waits
	const idle = 750 * time.Millisecond

	start := time.Now()
	_, spliced, err := copyToFile(t, &Handler{}, "gopher://"+s.addr+"/9/slow.bin", func(r *fetch.Request) { r.IdleTimeout = idle }, nil)
	if err != nil || !spliced {
		t.Errorf("a server sending a byte each 50 ms for %v, idle timeout %v: spliced %v, %v; want no error", time.Since(start), idle, spliced, err)
	}

	u := "gopher://" + s.addr + "/9/held.bin"
	for _, how := range []string{"idle", "cancel", "close"} {
		ctx, cancel := context.WithCancel(context.Background())
		uu, _ := url.ParseLenient(u)
		r := &fetch.Request{URL: uu, IdleTimeout: time.Minute}
		want := fetch.Canceled
		if how == "idle" {
			r.IdleTimeout = idle
			want = fetch.Timeout
		}
		res, err := (&Handler{}).Fetch(ctx, r)
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		var end func()
		switch how {
		case "cancel":
			end = cancel
		case "close":
			end = func() { res.Body.Close() }
		}
		spliced, took, err := fetchtest.CopyUntilEnded(t, res.Body, end)
		if err == nil {
			t.Errorf("%s: the copy succeeded", how)
		} else if how != "close" && !errors.Is(err, want) {
			t.Errorf("%s: %v (kind %v), want kind %v", how, err, fetch.KindOf(err), want)
		}
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			t.Errorf("%s: %v: the connection's failure is told as the output file's", how, err)
		}
		if how == "idle" && took > 5*idle {
			t.Errorf("idle: the stall ended after %v, with an idle timeout of %v", took, idle)
		}
		if !spliced {
			t.Errorf("%s: the file's ReadFrom never got the socket", how)
		}
		res.Body.Close()
		cancel()
	}
}
