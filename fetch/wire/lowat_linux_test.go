package wire_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/fetch/wire"
	"golang.org/x/sys/unix"
)

// TestSplicerLowMark: a Splicer with a LowMark gives the socket that low
// mark for all but the last chunk of a sized body, and 1 for the last, so
// that the body's end wakes the copy.
func TestSplicerLowMark(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 3*(4<<20)/16)
	addr := fetchtest.Serve(t, func(c net.Conn) { c.Write(data) })
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var marks []int
	spy := &fetchtest.SpliceFile{File: f, OnSocket: func(tc *net.TCPConn) {
		rc, _ := tc.SyscallConn()
		rc.Control(func(fd uintptr) {
			n, _ := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVLOWAT)
			marks = append(marks, n)
		})
	}}
	const mark = 1 << 20
	sp := wire.Splicer{LowMark: mark}
	n, _, err := sp.Splice(context.Background(), spy, nil, c.(*net.TCPConn), int64(len(data)))
	if err != nil || n != int64(len(data)) {
		t.Fatalf("Splice: %d bytes, %v; want %d", n, err, len(data))
	}
	if len(marks) < 2 || marks[0] != mark || marks[len(marks)-1] != 1 {
		t.Errorf("the socket's low marks at each ReadFrom: %v, want %d first and 1 last", marks, mark)
	}
}
