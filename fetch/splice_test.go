package fetch

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"syscall"
	"testing"
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
		if got := SocketError(tt.err); got != tt.want {
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
	if tc, ok := TCPConn(NewConn(c, 0)); !ok || tc != c {
		t.Errorf("TCPConn(NewConn(c)) = %v, %v; want c", tc, ok)
	}
	p1, p2 := net.Pipe()
	defer p1.Close()
	defer p2.Close()
	if _, ok := TCPConn(NewConn(p1, 0)); ok {
		t.Error("TCPConn found TCP under a pipe")
	}
}
