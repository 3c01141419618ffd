package wire_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/fetch/wire"
)

func TestSocketError(t *testing.T) {
	deadline := &fs.PathError{Op: "write", Path: "/out/file", Err: &net.OpError{Op: "splice", Err: os.ErrDeadlineExceeded}}
	tests := []struct {
		name string
		err  error
		want error // nil: the output's
	}{
		{"splice deadline", deadline, deadline.Err},
		{"reset", &fs.PathError{Op: "write", Path: "f", Err: syscall.ECONNRESET}, syscall.ECONNRESET},
		{"closed", net.ErrClosed, net.ErrClosed},
		{"disk full", &fs.PathError{Op: "write", Path: "f", Err: syscall.ENOSPC}, nil},
		{"other", errors.New("something"), nil},
	}
	for _, tt := range tests {
		if got := wire.SocketError(tt.err); got != tt.want {
			t.Errorf("%s: SocketError = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTCPConn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if tc, ok := wire.TCPConn(wire.NewConn(c, 0)); !ok || tc != c {
		t.Errorf("TCPConn(NewConn(c)) = %v, %v; want c", tc, ok)
	}
	p1, p2 := net.Pipe()
	defer p1.Close()
	defer p2.Close()
	if _, ok := wire.TCPConn(wire.NewConn(p1, 0)); ok {
		t.Error("TCPConn found TCP under a pipe")
	}
}

// errFull is what a failingOut fails with.
var errFull = errors.New("the output is full")

// failingOut is an output with room for a few bytes, by Write or by
// ReadFrom, which then fails with errFull.
type failingOut struct{ room int64 }

func (f *failingOut) Write(p []byte) (int, error) {
	n, err := f.ReadFrom(bytes.NewReader(p))
	return int(n), err
}

func (f *failingOut) ReadFrom(r io.Reader) (int64, error) {
	n, err := io.CopyN(io.Discard, r, f.room)
	f.room -= n
	if f.room == 0 {
		return n, errFull
	}
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// TestSplicer copies from an in-process TCP server's connection into an
// output file: the bytes the client buffered first, then the socket
// itself handed to the file's ReadFrom. Each case checks what the file
// holds, the count, the error's Kind and what it wraps, and, for a
// stall, that it ends one idle timeout after the last byte, give or take
// a slice (four slices make the idle timeout).
func TestSplicer(t *testing.T) {
	big := make([]byte, 2*(4<<20)+12345)
	for i := range big {
		big[i] = byte(i * 7)
	}
	kib := bytes.Repeat([]byte("0123456789abcdef"), 64)
	slow := bytes.Repeat([]byte("slow bytes, "), 64) // 768 bytes, 12 drips
	drip := func(c net.Conn, last func()) {
		for i := 0; i < len(slow); i += 64 {
			time.Sleep(150 * time.Millisecond)
			c.Write(slow[i : i+64])
		}
		last()
	}
	errStop := fetch.Errorf(fetch.Timeout, "the whole transfer took too long")
	const lowMark = 1 << 20
	tests := []struct {
		name    string
		send    func(c net.Conn, last func()) // after the head line; last marks the last byte
		hold    bool                          // the server keeps the connection open after send
		n       int64
		idle    time.Duration
		lowMark int
		cancel  error  // the context's cause, 300 ms in
		out     string // "file" (the default), "plain": no ReaderFrom, "full": failingOut, "read-only": a file opened to read

		want    []byte // what the output gets
		spliced bool   // the socket went to the file's ReadFrom
		kind    fetch.Kind
		is      error  // what the error wraps
		msg     string // in the error's text
		stall   bool   // the error came an idle timeout after the last byte
		prompt  bool   // the copy ended at the last byte, well within a slice
		next    string // what the connection holds after the copy
	}{
		{name: "until the peer closes", send: func(c net.Conn, _ func()) { c.Write(big) }, n: -1,
			want: big, spliced: true},
		{name: "sized, the peer stays", send: func(c net.Conn, _ func()) { c.Write(big); c.Write([]byte("next")) }, hold: true,
			n: int64(len(big)), idle: time.Second, want: big, spliced: true, next: "next"},
		{name: "sized under a low mark, the peer stays", send: func(c net.Conn, _ func()) { c.Write(big); c.Write([]byte("next")) }, hold: true,
			n: int64(len(big)), idle: time.Second, lowMark: lowMark, want: big, spliced: true, next: "next"},
		{name: "sized, its last bytes late, under a low mark", send: func(c net.Conn, last func()) {
			c.Write(big[:len(big)-1000])
			time.Sleep(300 * time.Millisecond)
			c.Write(big[len(big)-1000:])
			last()
			c.Write([]byte("next"))
		}, hold: true, n: int64(len(big)), idle: 20 * time.Second, lowMark: lowMark, want: big, spliced: true, prompt: true, next: "next"},
		{name: "sized, smaller than the low mark", send: func(c net.Conn, last func()) {
			time.Sleep(300 * time.Millisecond)
			c.Write(kib)
			last()
		}, hold: true, n: int64(len(kib)), idle: 20 * time.Second, lowMark: lowMark, want: kib, spliced: true, prompt: true},
		{name: "nothing to copy", send: func(c net.Conn, _ func()) { c.Write(kib) }, hold: true, n: 0, want: []byte{}, next: string(kib[:100]) + string(kib)},
		{name: "the peer closes early", send: func(c net.Conn, _ func()) { c.Write(kib) }, n: 3 * int64(len(kib)),
			want: kib, kind: fetch.Incomplete, is: io.ErrUnexpectedEOF, msg: "1124 of 3172 bytes"},
		{name: "the peer resets", send: func(c net.Conn, _ func()) {
			c.Write(kib)
			time.Sleep(100 * time.Millisecond)
			c.(*net.TCPConn).SetLinger(0)
		}, n: -1, want: kib, kind: fetch.Incomplete, is: syscall.ECONNRESET},
		{name: "a stall", send: func(c net.Conn, last func()) { c.Write(kib); last() }, hold: true, n: -1, idle: 800 * time.Millisecond,
			want: kib, spliced: true, kind: fetch.Timeout, is: os.ErrDeadlineExceeded, stall: true},
		{name: "a stall short of the low mark", send: func(c net.Conn, last func()) {
			time.Sleep(100 * time.Millisecond)
			c.Write(kib)
			last()
		}, hold: true, n: -1, idle: 800 * time.Millisecond, lowMark: lowMark,
			want: kib, spliced: true, kind: fetch.Timeout, is: os.ErrDeadlineExceeded, stall: true},
		{name: "slow, never idle for long", send: drip, n: -1, idle: 400 * time.Millisecond,
			want: slow, spliced: true},
		{name: "slow, sized, under a low mark", send: drip, hold: true, n: int64(len(slow)), idle: 400 * time.Millisecond, lowMark: lowMark,
			want: slow, spliced: true},
		{name: "cancelled", send: func(c net.Conn, _ func()) { c.Write(kib) }, hold: true, n: -1, cancel: context.Canceled,
			want: kib, spliced: true, kind: fetch.Canceled, is: context.Canceled},
		{name: "a cause", send: func(c net.Conn, _ func()) { c.Write(kib) }, hold: true, n: 4 * int64(len(kib)), cancel: errStop,
			want: kib, spliced: true, kind: fetch.Timeout, is: errStop},
		{name: "the output fails", send: func(c net.Conn, _ func()) { c.Write(big) }, n: -1, out: "full",
			is: errFull},
		{name: "a file opened to read", send: func(c net.Conn, _ func()) { c.Write(big) }, n: -1, out: "read-only",
			is: syscall.EBADF, want: []byte{}},
		{name: "no ReaderFrom", send: func(c net.Conn, _ func()) { c.Write(kib) }, n: -1, out: "plain",
			want: []byte{}, next: string(kib[:100]) + string(kib)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lastc := make(chan time.Time, 1)
			done := make(chan struct{})
			defer close(done)
			addr := fetchtest.Serve(t, func(c net.Conn) {
				// The head line, and a few bytes of the body with it
				// that the client's buffer takes.
				c.Write([]byte("head\n" + string(kib[:100])))
				time.Sleep(50 * time.Millisecond)
				tt.send(c, func() { lastc <- time.Now() })
				if tt.hold {
					<-done
				}
			})
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			c := nc.(*net.TCPConn)
			br := bufio.NewReader(c)
			if l, err := br.ReadString('\n'); l != "head\n" {
				t.Fatalf("the head line: %q, %v", l, err)
			}
			path := filepath.Join(t.TempDir(), "out")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			spy := &fetchtest.SpliceFile{File: f}
			var dst io.Writer = spy
			switch tt.out {
			case "plain":
				dst = struct{ io.Writer }{f}
			case "full":
				dst = &failingOut{room: 5000}
			case "read-only":
				ro, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer ro.Close()
				spy.File = ro
			}
			ctx := context.Background()
			if tt.cancel != nil {
				var cancel context.CancelCauseFunc
				ctx, cancel = context.WithCancelCause(ctx)
				defer cancel(nil)
				time.AfterFunc(300*time.Millisecond, func() { cancel(tt.cancel) })
			}
			n := tt.n
			if n > 0 {
				n += 100 // the bytes that came with the head line
			}
			sp := wire.Splicer{IdleTimeout: tt.idle, LowMark: tt.lowMark}
			start := time.Now()
			written, spliced, err := sp.Splice(ctx, dst, br, c, n)
			end := time.Now()

			if spliced != (tt.out != "plain") {
				t.Errorf("Splice reported %v, want %v", spliced, tt.out != "plain")
			}
			if tt.spliced && !spy.Spliced {
				t.Error("the file's ReadFrom never got the socket")
			}
			var fe *fetch.Error
			switch {
			case tt.kind == 0 && tt.is == nil:
				if err != nil {
					t.Errorf("Splice: %v", err)
				}
			case tt.kind == 0:
				// The output's error, as it came.
				if !errors.Is(err, tt.is) || errors.As(err, &fe) || wire.SocketError(err) != nil {
					t.Errorf("Splice: %v, want the output's %v", err, tt.is)
				}
			default:
				if !errors.As(err, &fe) || fe.Kind != tt.kind || !errors.Is(err, tt.is) {
					t.Errorf("Splice: %v (kind %d), want an *Error of kind %d wrapping %v", err, fetch.KindOf(err), tt.kind, tt.is)
				}
				if !strings.Contains(fmt.Sprint(err), tt.msg) {
					t.Errorf("Splice: %v, want %q in it", err, tt.msg)
				}
			}
			if tt.want != nil {
				want := append(append([]byte{}, kib[:100]...), tt.want...)
				if tt.out == "plain" || tt.out == "read-only" || n == 0 {
					want = tt.want
				}
				got, _ := os.ReadFile(path)
				if !bytes.Equal(got, want) || written != int64(len(want)) {
					t.Errorf("%d bytes copied, the file holds %d, want %d", written, len(got), len(want))
				}
			}
			if tt.cancel != nil && end.Sub(start) > 300*time.Millisecond+2*time.Second {
				t.Errorf("the copy ended %v after the cancel", end.Sub(start)-300*time.Millisecond)
			}
			if tt.stall {
				var last time.Time
				select {
				case last = <-lastc:
				case <-time.After(5 * time.Second):
					t.Fatal("the server did not send its last byte")
				}
				slice := tt.idle / 4
				took := end.Sub(last)
				if took < tt.idle-slice || took > tt.idle+2*slice+2*time.Second {
					t.Errorf("the stall ended %v after the last byte, with an idle timeout of %v", took, tt.idle)
				}
			}
			if tt.prompt {
				select {
				case last := <-lastc:
					if took := end.Sub(last); took > 2*time.Second {
						t.Errorf("the copy ended %v after the last byte, a slice of the idle timeout of %v", took, tt.idle)
					}
				case <-time.After(5 * time.Second):
					t.Error("the server did not send its last byte")
				}
			}
			if tt.next != "" {
				// The copy took no byte past its end, and left no
				// deadline behind.
				time.Sleep(min(tt.idle, time.Second) + 100*time.Millisecond)
				p := make([]byte, len(tt.next))
				guard := time.AfterFunc(5*time.Second, func() { c.Close() })
				defer guard.Stop()
				if _, err := io.ReadFull(br, p); err != nil || string(p) != tt.next {
					t.Errorf("after the copy the connection holds %q, %v; want %q", p, err, tt.next)
				}
			}
		})
	}
}
