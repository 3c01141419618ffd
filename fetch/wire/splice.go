package wire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/rfc1738/fetch/fetch"
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

// spliceChunk is the most that one call of the output's ReadFrom moves in
// a Splice. Between chunks the copy looks at the context, and an output
// that counts what its ReadFrom returns (a progress meter) moves on.
const spliceChunk = 4 << 20

// spliceSlices is how many slices the idle timeout is cut into while the
// output's ReadFrom waits on the socket: a slice in which a byte came is
// progress, and spliceSlices slices in a row without one are a stall.
const spliceSlices = 4

// A Splicer copies a body from a TCP socket into an output by the
// output's ReadFrom, handing it the socket itself, so that an *os.File
// moves the bytes with splice(2) on Linux, without a copy through this
// process. It keeps the rules of a Read on a Conn: a wait without a byte
// is bounded by the idle timeout, and the request's context ends the copy
// at once. The zero Splicer is ready to use.
type Splicer struct {
	// IdleTimeout bounds the wait for a byte; zero means
	// DefaultIdleTimeout. The wait is cut into four slices, each a
	// deadline on the socket: a slice in which a byte came is progress,
	// so a slow sender never times out while it sends, and one that
	// stopped times out one idle timeout after its last byte, give or
	// take a slice.
	IdleTimeout time.Duration

	// LowMark, when above 1, is the socket's receive low mark
	// (SO_RCVLOWAT; Linux only) during the copy: this process is woken
	// once that many bytes have come, or the peer closed, rather than for
	// each of the sender's writes. The last LowMark bytes of a sized body
	// are waited for with a mark of 1, and so is everything after a slice
	// in which the sender stayed short of the mark (a stall then takes a
	// slice longer to notice). Zero leaves the socket's mark alone.
	LowMark int
}

// Splice copies n bytes, or with n < 0 everything until the peer closes,
// from the connection c into dst, and returns how many it copied. br,
// when not nil, is the buffered reader the caller has read c through: the
// bytes it holds go first, by dst.Write, and an error it holds is the
// connection's. The rest goes to dst's ReadFrom with c itself as the
// reader (within an *io.LimitedReader), at most spliceChunk at a time.
//
// Splice reports false, having done nothing, when dst is not an
// io.ReaderFrom: the caller then copies in its own way. Otherwise it
// reports true, and a nil error once the n bytes, or all until the peer
// closed, are in dst. Else the error is one of these:
//
//   - the output's own, as dst returned it (a full disk);
//   - an *Error of Kind Incomplete wrapping io.ErrUnexpectedEOF, when the
//     peer closed before n bytes;
//   - an *Error of Kind Timeout wrapping os.ErrDeadlineExceeded, when no
//     byte came for the idle timeout;
//   - the cause of ctx once ctx is done, as an *Error of its Kind;
//   - any other failure of the connection (a reset) as an *Error of Kind
//     Incomplete, or Timeout when the kernel gave up on the peer.
//
// So an error that is not an *Error is the output's.
//
// Splice sets c's read deadline as it goes and lifts it on return, unless
// ctx is done. Only Splice reads c meanwhile; closing c from another
// goroutine ends the copy with an error of Kind Incomplete.
func (s *Splicer) Splice(ctx context.Context, dst io.Writer, br *bufio.Reader, c *net.TCPConn, n int64) (written int64, spliced bool, err error) {
	rf, ok := dst.(io.ReaderFrom)
	if !ok {
		return 0, false, nil
	}
	left := n // what remains, or -1 until the peer closes
	short := func() error {
		return fetch.Errorf(fetch.Incomplete, "the connection closed after %d of %d bytes: %w", written, n, io.ErrUnexpectedEOF)
	}
	if br != nil && left != 0 {
		if k := int64(br.Buffered()); k > 0 {
			if left > 0 {
				k = min(k, left)
			}
			p, _ := br.Peek(int(k))
			m, err := dst.Write(p)
			br.Discard(m)
			written += int64(m)
			if left > 0 {
				left -= int64(m)
			}
			if err != nil {
				return written, true, err
			}
		}
		// With its buffer empty, a read of nothing returns the error the
		// reader holds, if any, without reading more.
		if left != 0 {
			if _, err := br.Read(nil); err == io.EOF {
				if left < 0 {
					return written, true, nil
				}
				return written, true, short()
			} else if err != nil {
				return written, true, connErr(ctx, err)
			}
		}
	}
	if left == 0 {
		return written, true, nil
	}

	idle := s.IdleTimeout
	if idle <= 0 {
		idle = fetch.DefaultIdleTimeout
	}
	slice := idle / spliceSlices
	stop := func() bool { return true }
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, func() { c.SetReadDeadline(past) })
	}
	defer func() {
		stop()
		if ctx.Err() == nil {
			c.SetReadDeadline(time.Time{})
		}
	}()

	lr := &io.LimitedReader{R: c}
	quiet := 0
	mark, lowat := 1, s.LowMark > 1 // the socket's mark, and whether to set it
	for {
		lr.N = spliceChunk
		want := 1
		if lowat {
			want = s.LowMark
		}
		switch {
		case left < 0:
		case left <= int64(want):
			lr.N, want = min(lr.N, left), 1
		case want > 1:
			// A sized body's last bytes must wake this process even
			// when the peer keeps the connection open: no chunk but
			// the last ends within a mark of the body's end, and the
			// last has a mark of 1.
			lr.N = min(lr.N, left-int64(want))
		default:
			lr.N = min(lr.N, left)
		}
		if lowat && want != mark {
			if lowat = setLowat(c, want); lowat {
				mark = want
			}
		}
		// Armed before the context is looked at: a cancel after the
		// look sets the deadline past again.
		c.SetReadDeadline(time.Now().Add(slice))
		if ctx.Err() != nil {
			return written, true, ctxErr(ctx)
		}
		m, err := rf.ReadFrom(lr)
		written += m
		if left > 0 {
			left -= m
		}
		if m > 0 {
			quiet = 0
		}
		switch {
		case err == nil && lr.N > 0:
			// Short of the chunk with no error: the peer closed.
			if left < 0 {
				return written, true, nil
			}
			return written, true, short()
		case err == nil:
			if left == 0 {
				return written, true, nil
			}
		case SocketError(err) == nil:
			return written, true, err
		case ctx.Err() != nil:
			return written, true, ctxErr(ctx)
		case errors.Is(err, os.ErrDeadlineExceeded):
			if mark > 1 {
				// A sender slower than the mark fills it: from now
				// on each byte wakes this process. The bytes below
				// the mark that came in this slice the next ReadFrom
				// takes at once, as progress.
				setLowat(c, 1)
				mark = 1
			}
			lowat = false
			if m == 0 {
				quiet++
			}
			if quiet >= spliceSlices {
				return written, true, &fetch.Error{Kind: fetch.Timeout, Err: fmt.Errorf("no byte for %v: %w", idle, SocketError(err))}
			}
		default:
			return written, true, connErr(ctx, SocketError(err))
		}
	}
}

// connErr classifies a failure of the connection under a Splice.
func connErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctxErr(ctx)
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	if fetch.KindOf(err) == fetch.Timeout {
		return &fetch.Error{Kind: fetch.Timeout, Err: err}
	}
	return &fetch.Error{Kind: fetch.Incomplete, Err: err}
}

// ctxErr is the cause of a done ctx as an *Error of its Kind.
func ctxErr(ctx context.Context) error {
	err := context.Cause(ctx)
	return fetch.Wrap(fetch.KindOf(err), err)
}
