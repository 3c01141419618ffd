package gopher

import (
	"bytes"
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSpliceLowat checks that the socket of a spliced item waits for
// spliceLowat bytes before it wakes the copy.
func TestSpliceLowat(t *testing.T) {
	data := binary(3 * (4 << 20))
	s := newServer(t, map[string]respond{"/big.bin": send(string(data))})
	var marks []int
	got, _, err := copyToFile(t, &Handler{}, "gopher://"+s.addr+"/9/big.bin", nil, func(tc *net.TCPConn) {
		rc, _ := tc.SyscallConn()
		rc.Control(func(fd uintptr) {
			n, _ := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVLOWAT)
			marks = append(marks, n)
		})
	})
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%d bytes, %v; want the item", len(got), err)
	}
	if len(marks) == 0 || marks[0] != spliceLowat {
		t.Errorf("the socket's low marks at each ReadFrom: %v, want %d first", marks, spliceLowat)
	}
}
