package main

import (
	"errors"
	"io"
	"io/fs"
	"syscall"

	"github.com/rfc1738/fetch/fetch/wire"
)

// ReadFrom passes io.Copy's ReaderFrom path through the count, so that an
// output file's own ReadFrom (splice from a TCP connection,
// copy_file_range from a file) does the copy. A failure that the output
// side caused is remembered as the write failure.
func (c *countWriter) ReadFrom(r io.Reader) (int64, error) {
	rf, ok := c.w.(io.ReaderFrom)
	if !ok {
		return io.Copy(struct{ io.Writer }{c}, r)
	}
	n, err := rf.ReadFrom(r)
	c.n += n
	if err != nil && writeSide(err) {
		c.werr = err
	}
	return n, err
}

// writeSide reports whether an error out of an output file's ReadFrom was
// the output's: a failed write, or an error only writing to a file yields.
// A copy done by the kernel (splice, copy_file_range) names no side, so
// the error number tells; an *os.File reports a splice that failed on
// the socket (a deadline, a reset) as a failed write, which it was not.
func writeSide(err error) bool {
	if wire.SocketError(err) != nil {
		return false
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "write" {
		return true
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOSPC, syscall.EFBIG, syscall.EROFS, syscall.EIO, syscall.EDQUOT:
			return true
		}
	}
	return false
}
