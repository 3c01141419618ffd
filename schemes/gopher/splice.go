package gopher

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// spliceChunk is the most one ReadFrom of the output moves: the count of
// bytes (and a progress meter above it) moves on after each chunk.
const spliceChunk = 4 << 20

// idleSlices is how many slices the idle timeout is cut into while the
// output's ReadFrom waits on the socket. A slice in which bytes moved is
// progress; idleSlices slices in a row without a byte are a stall. So a
// slow server never times out while it sends, and a stalled one times out
// one idle timeout after its last byte, or a slice later (two when it
// stopped short of the low mark, which holds its bytes back for a slice).
const idleSlices = 4

// spliceLowat is the low mark (SO_RCVLOWAT) the socket is given while it
// is spliced: this process is woken once that much has come rather than
// for each of the server's writes. Gophernicus and pygopherd write 4 KiB
// at a time, and on a machine with few cores each wakeup of the client
// takes the core from the server. 1 MiB is what the splice moves through
// its pipe at a time.
const spliceLowat = 1 << 20

// spliceTo hands the rest of the body to w's ReadFrom with the
// connection's socket itself as the reader, so that an *os.File moves the
// bytes with splice(2) on Linux, without a copy through this process. It
// does so for an item read until the server closes and for one whose size
// a Gopher+ header gave; text and menus, whose ends are looked for in the
// bytes, are read as before. The bytes the session has already buffered
// go first, by w.Write. It reports false when it cannot (TLS, a connection
// that is not TCP, a w that is not an io.ReaderFrom, a body of another
// kind), and WriteTo then copies. The rules are Read's: a server closing
// before an announced size is Kind Incomplete, a reset connection too, a
// stall Kind Timeout, and the session's context ends the copy with its
// cause.
func (b *body) spliceTo(w io.Writer) (int64, bool, error) {
	rf, ok := w.(io.ReaderFrom)
	if !ok {
		return 0, false, nil
	}
	s := b.s
	var sized *sizedReader
	switch r := b.r.(type) {
	case rawReader:
		if r.r != io.Reader(s.br) {
			return 0, false, nil
		}
	case *sizedReader:
		if r.r != io.Reader(s.br) {
			return 0, false, nil
		}
		sized = r
	default:
		return 0, false, nil
	}
	fc, ok := s.conn.(*fetch.Conn)
	if !ok {
		return 0, false, nil
	}
	tc, ok := fetch.TCPConn(fc.Conn)
	if !ok {
		return 0, false, nil
	}

	// left is what remains of a sized item, or -1 until the server closes.
	left := int64(-1)
	if sized != nil {
		left = sized.n
	}
	moved := func(n int64) {
		if sized != nil {
			sized.n -= n
			left = sized.n
		}
	}
	closed := func(total int64) (int64, bool, error) {
		if left > 0 {
			return total, true, fetch.Errorf(fetch.Incomplete, "the server closed after %d of %d bytes", sized.size-left, sized.size)
		}
		return total, true, nil
	}

	var total int64
	if n := s.br.Buffered(); n > 0 && left != 0 {
		if left > 0 && int64(n) > left {
			n = int(left)
		}
		p, _ := s.br.Peek(n)
		m, err := w.Write(p)
		s.br.Discard(m)
		total += int64(m)
		moved(int64(m))
		if err != nil {
			return total, true, err
		}
	}
	if left == 0 {
		return total, true, nil
	}
	// With its buffer empty, a read of nothing returns the error the
	// buffer held, if any, without reading more.
	if _, err := s.br.Read(nil); err == io.EOF {
		return closed(total)
	} else if err != nil {
		return total, true, readErr(err)
	}

	slice := s.idle / idleSlices
	quiet := 0
	lr := &io.LimitedReader{R: tc}
	mark, lowat := int64(0), true
	for {
		// A sized item's last bytes must wake this process even when
		// the server keeps the connection open: no chunk but the last
		// ends within a mark of the item's end, and the last has none.
		lr.N = spliceChunk
		want := int64(spliceLowat)
		switch {
		case left < 0:
		case left <= want:
			lr.N, want = left, 1
		default:
			lr.N = min(lr.N, left-want)
		}
		if lowat && want != mark {
			if lowat = setLowat(tc, int(want)); lowat {
				mark = want
			}
		}
		// Armed before the context is looked at: a cancel after the look
		// sets the deadline past again.
		tc.SetReadDeadline(time.Now().Add(slice))
		if err := s.ended(); err != nil {
			return total, true, err
		}
		n, err := rf.ReadFrom(lr)
		total += n
		moved(n)
		if n > 0 {
			quiet = 0
		}
		switch {
		case err == nil && lr.N > 0:
			// Short of the chunk with no error: the server closed.
			return closed(total)
		case err == nil:
			if left == 0 {
				return total, true, nil
			}
		case fetch.SocketError(err) == nil:
			// The output failed.
			return total, true, err
		case s.ended() != nil:
			return total, true, s.ended()
		case errors.Is(err, os.ErrDeadlineExceeded):
			if lowat && mark > 1 {
				// A server slower than the mark fills it: from
				// now on each byte wakes this process. Bytes below
				// the mark that came in this slice the next
				// ReadFrom takes at once, as progress.
				setLowat(tc, 1)
			}
			lowat = false
			if n == 0 {
				quiet++
			}
			if quiet >= idleSlices {
				return total, true, fetch.Wrap(fetch.Timeout, fetch.SocketError(err))
			}
		default:
			return total, true, readErr(fetch.SocketError(err))
		}
	}
}
