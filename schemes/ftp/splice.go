package ftp

import (
	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// spliceChunk is how much one ReadFrom of the output may move before the
// copy comes back here (for the counts, and to look at the context).
const spliceChunk = 4 << 20

// idleSlices is how many slices the idle timeout is cut into while the
// output's ReadFrom waits on the socket: a slice in which bytes moved is
// progress, and idleSlices slices in a row without a byte are a stall.
// So a slow server (under a chunk an idle time) never times out while it
// sends, and a stalled one times out within a slice of the idle time
// after its last byte.
const idleSlices = 4

// readFrom lets w's ReadFrom take the bytes straight from the data
// connection's socket (on Linux an *os.File splices them, without a copy
// through this process), a chunk at a time under the idle deadline. It
// reports false when it cannot: TLS on the data connection, a connection
// that is not TCP, or a w that is not an io.ReaderFrom; WriteTo then
// copies. The counts, the final reply and the Incomplete rules are those
// of Read.
func (t *transfer) readFrom(w io.Writer) (int64, bool, error) {
	rf, ok := w.(io.ReaderFrom)
	if !ok || t.data.raw == nil || t.data.r != net.Conn(t.data.raw) {
		return 0, false, nil
	}
	tc, ok := fetch.TCPConn(t.data.raw.Conn)
	if !ok {
		return 0, false, nil
	}
	var total int64
	lr := &io.LimitedReader{R: tc}
	slice := t.data.raw.IdleTimeout() / idleSlices
	quiet := 0
	defer t.data.raw.SetReadLimit(time.Time{})
	for {
		t.mu.Lock()
		if t.err != nil {
			err := t.err
			t.mu.Unlock()
			if err == io.EOF {
				err = nil
			}
			return total, true, err
		}
		t.reading = true
		t.mu.Unlock()

		// A read of nothing arms the deadline, a slice from now, and
		// fails at once with the context's cause when the transfer was
		// cancelled.
		t.data.raw.SetReadLimit(time.Now().Add(slice))
		_, err := t.data.raw.Read(nil)
		var n int64
		slow := false
		if err == nil {
			lr.N = spliceChunk
			n, err = rf.ReadFrom(lr)
			if err != nil && fetch.SocketError(err) == nil {
				// The output failed: the transfer stays as it is,
				// for the caller to close.
				t.n += n
				total += n
				t.mu.Lock()
				t.reading = false
				closed := t.closed
				t.mu.Unlock()
				if closed {
					t.data.close()
					t.drop()
				}
				return total, true, err
			}
			if n > 0 {
				quiet = 0
			}
			if err != nil {
				if _, d := t.data.raw.Read(nil); d != nil {
					err = d // the context's cause
				} else if errors.Is(err, os.ErrDeadlineExceeded) {
					if n == 0 {
						quiet++
					}
					if quiet < idleSlices {
						err, slow = nil, true
					} else {
						err = fetch.SocketError(err)
					}
				} else {
					err = fetch.SocketError(err)
				}
			}
		}
		t.n += n
		total += n
		switch {
		case err != nil:
			err = t.broken(err)
		case slow:
			// A slice ended with less than a chunk: the data is slow,
			// or has not come for less than the idle time.
		case lr.N > 0:
			// Less than a chunk, and no error: the data ended.
			err = t.complete()
		}

		t.mu.Lock()
		t.reading = false
		closed := t.closed
		if t.err == nil {
			t.err = err
		}
		t.mu.Unlock()
		if closed {
			t.data.close()
			t.drop()
		}
	}
}
