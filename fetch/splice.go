package fetch

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"syscall"
)

// TCPConn finds the *net.TCPConn under c's wrappers (the dial policy's
// record of the address, a Conn, a *tls.Conn, ...), each of which names
// the connection it wraps with NetConn. Handlers use it to hand an
// output's ReadFrom the socket itself, which an *os.File splices from on
// Linux; the caller makes sure that no TLS stands between. It reports
// false for connections that are not TCP.
func TCPConn(c net.Conn) (*net.TCPConn, bool) {
	for range 8 {
		switch x := c.(type) {
		case *net.TCPConn:
			return x, true
		case *Conn:
			c = x.Conn
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
		default:
			return nil, false
		}
	}
	return nil, false
}

// SocketError returns the part of err, an error out of an output's
// ReadFrom that read from a network connection, that the connection
// caused: a deadline, the connection closed under the copy, the peer's
// reset or abort. An *os.File reports a splice that failed on the socket
// as a failed write to the file, which it was not; SocketError returns
// the error without the file's name. It returns nil when the output
// caused err.
func SocketError(err error) error {
	if !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, net.ErrClosed) &&
		!errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.ECONNABORTED) &&
		!errors.Is(err, syscall.ETIMEDOUT) {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "write" {
		return pe.Err
	}
	return err
}
