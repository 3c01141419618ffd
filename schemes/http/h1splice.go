package http

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// spliceChunk is how much one ReadFrom of the output may move before the
// copy comes back here, for the counts and the context.
const spliceChunk = 4 << 20

// idleSlices is how many slices the idle timeout is cut into while the
// output's ReadFrom waits on the socket: a slice in which bytes moved is
// progress, and idleSlices slices in a row without a byte are a stall. So
// a slow server never times out while it sends, and a stalled one times
// out within a slice of the idle time after its last byte.
const idleSlices = 4

// errSpliceStall marks a splice that saw no byte for the idle time.
var errSpliceStall = errors.New("no byte of the body for the idle time")

// spliceTo copies the rest of a body framed by Content-Length into w: the
// bytes already buffered by a Write, then the rest straight from the
// socket by rf's ReadFrom (an *os.File splices it on Linux, without a
// copy through this process), under the idle timeout cut into slices.
// handled is false when it cannot (no Content-Length, a connection that
// is not TCP, the body already read from or closed); Read then serves.
// Once the body is whole the connection goes back to the pool, as after
// a Read to the end. Errors are raw: an output's own, the socket's
// (fetch.SocketError), errSpliceStall, or the context's deadline.
func (b *h1Body) spliceTo(ctx context.Context, w io.Writer, rf io.ReaderFrom, idle time.Duration) (n int64, handled bool, err error) {
	b.mu.Lock()
	ok := b.left >= 0 && b.read == 0 && !b.closed && !b.done
	b.mu.Unlock()
	if !ok {
		return 0, false, nil
	}
	tc, ok := fetch.TCPConn(b.pc.conn)
	if !ok {
		return 0, false, nil
	}
	left := b.left
	if k := int64(b.pc.br.Buffered()); k > 0 {
		p, _ := b.pc.br.Peek(int(min(k, left)))
		m, err := w.Write(p)
		b.pc.br.Discard(m)
		n += int64(m)
		left -= int64(m)
		if err != nil {
			return n, true, err
		}
	}
	slice := idle / idleSlices
	quiet := 0
	lr := &io.LimitedReader{R: tc}
	for left > 0 {
		// Armed before the context is looked at: a cancel after the
		// look sets the deadline past again.
		tc.SetReadDeadline(time.Now().Add(slice))
		if ctx.Err() != nil {
			return n, true, ctx.Err()
		}
		lr.N = min(spliceChunk, left)
		m, err := rf.ReadFrom(lr)
		n += m
		left -= m
		if m > 0 {
			quiet = 0
		}
		switch {
		case err == nil && lr.N > 0:
			return n, true, io.ErrUnexpectedEOF // the server closed early
		case err == nil:
		case fetch.SocketError(err) == nil:
			return n, true, err // the output's
		case ctx.Err() != nil:
			return n, true, ctx.Err()
		case errors.Is(err, os.ErrDeadlineExceeded):
			if m == 0 {
				quiet++
			}
			if quiet >= idleSlices {
				return n, true, errSpliceStall
			}
		default:
			return n, true, fetch.SocketError(err)
		}
	}
	tc.SetReadDeadline(time.Time{})
	b.mu.Lock()
	b.read = b.left
	b.mu.Unlock()
	b.finish(b.reuse)
	return n, true, nil
}
