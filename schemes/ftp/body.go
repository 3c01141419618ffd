package ftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/rfc1738/fetch/fetch"
)

// transfer is the Body of a RETR or NLST: the data connection's bytes,
// complete only once the server's final 226 or 250 has arrived after them
// and, when SIZE told the length, no byte is missing. Until then the end of
// the data is an error of Kind Incomplete, never io.EOF.
//
// A transfer is read by one goroutine; Close may come from another, while
// a Read is blocked, and aborts it.
type transfer struct {
	ctx    context.Context // the request's, which the data connection watches
	h      *Handler
	c      *ctrl
	key    string
	cmd    string // "RETR name", for errors
	data   dataConn
	want   int64 // the bytes expected, or -1
	offset int64 // where the body starts in the file (REST)
	n      int64

	mu      sync.Mutex // guards what follows, and c against Close
	err     error      // sticky: io.EOF once complete, else the failure
	reading bool       // a Read is in progress: its goroutine owns the connections
	closed  bool
}

func (t *transfer) Read(p []byte) (int, error) {
	t.mu.Lock()
	if t.err != nil {
		err := t.err
		t.mu.Unlock()
		return 0, err
	}
	t.reading = true
	t.mu.Unlock()

	n, err := t.data.r.Read(p)
	t.n += int64(n)
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		err = t.complete()
	default:
		err = t.broken(err)
	}

	t.mu.Lock()
	t.reading = false
	closed := t.closed
	if t.err == nil {
		t.err = err
	}
	err = t.err
	t.mu.Unlock()
	if closed {
		// Close came while this Read was blocked: it cut the
		// connections, and the cleaning up is done here.
		t.data.close()
		t.drop()
	}
	return n, err
}

// complete reads the final reply after the data ended, and hands the
// control connection back to the pool when all is well.
func (t *transfer) complete() error {
	t.data.close()
	c := t.c
	code, msg, err := c.read(t.cmd)
	if err != nil {
		t.drop()
		// A deadline that ran out is a timeout; any other failure
		// leaves the transfer unconfirmed.
		k := fetch.KindOf(err)
		if k != fetch.Timeout && k != fetch.Canceled {
			k = fetch.Incomplete
		}
		return &fetch.Error{Kind: k, Err: fmt.Errorf("%s: no final reply after %d bytes: %w", t.cmd, t.n, cause(err))}
	}
	if !t.handBack() {
		return errBodyClosed
	}
	if code != 226 && code != 250 {
		// The control connection is in step: only the transfer failed.
		t.h.release(t.key, c, true)
		if code == 426 || code == 451 || code/100 == 4 {
			return replyErr(fetch.Incomplete, t.cmd, code, msg, "")
		}
		return c.unexpected(t.cmd, code, msg)
	}
	t.h.release(t.key, c, true)
	if t.want >= 0 && t.n < t.want {
		return fetch.Errorf(fetch.Incomplete, "%s: %d bytes of the %d that SIZE announced", t.cmd, t.n, t.want)
	}
	if t.want >= 0 && t.offset > 0 && t.n > t.want {
		// More than the rest of the file: the server accepted REST but
		// sent from the start, and the bytes do not belong at the offset.
		return fetch.Errorf(fetch.Protocol, "%s: %d bytes after REST %d, but only %d remain: the server ignored REST", t.cmd, t.n, t.offset, t.want)
	}
	return io.EOF
}

// broken handles a failed read of the data connection.
func (t *transfer) broken(err error) error {
	t.data.close()
	t.drop()
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	k := fetch.KindOf(err)
	if k != fetch.Timeout && k != fetch.Canceled {
		k = fetch.Incomplete
	}
	return &fetch.Error{Kind: k, Err: fmt.Errorf("%s: data connection after %d bytes: %w", t.cmd, t.n, err)}
}

// handBack takes the control connection from the transfer to give it back
// to the pool, unless Close came first (it then stays, for drop).
func (t *transfer) handBack() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.c = nil
	return true
}

// drop closes the control connection, which can no longer be trusted.
func (t *transfer) drop() {
	t.mu.Lock()
	c := t.c
	t.c = nil
	t.mu.Unlock()
	if c != nil {
		c.unwatch()
		c.close(false)
	}
}

// errBodyClosed is what reading a Body after Close returns.
var errBodyClosed = fetch.Errorf(fetch.Other, "the body was closed before its end")

// Close finishes the transfer. After the whole body was read the control
// connection is already back in the pool; before, the transfer is
// abandoned and both connections are closed (an abandoned transfer leaves
// the control connection in an unknown state). Close may be called while
// a Read is blocked in another goroutine: it cuts the connections, and
// that Read returns at once with an error. Close is safe to call more
// than once.
func (t *transfer) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	if t.err != nil {
		t.mu.Unlock()
		return nil
	}
	t.err = errBodyClosed
	if t.reading {
		// The reading goroutine owns the connections: cut them under it
		// (closing a socket is safe from any goroutine), and it cleans up.
		t.data.cut()
		if t.c != nil {
			t.c.raw.Conn.Close()
		}
		t.mu.Unlock()
		return nil
	}
	t.mu.Unlock()
	t.data.close()
	t.drop()
	return nil
}

// copyBuf is the size of the buffer WriteTo copies with: large enough
// that a fast transfer costs few system calls.
const copyBuf = 128 << 10

// copyBufs holds the buffers of finished copies for the next ones: with
// many small files, a new buffer for each would keep the garbage
// collector busy.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBuf); return &b }}

// WriteTo copies the rest of the body to w with a large buffer, so that
// io.Copy needs few reads. It returns a nil error once the body is
// complete, and the failure (Kind Incomplete, ...) otherwise.
func (t *transfer) WriteTo(w io.Writer) (int64, error) {
	if n, ok, err := t.readFrom(w); ok {
		return n, err
	}
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	var total int64
	for {
		n, err := t.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// cause is err without its outer *fetch.Error, whose Kind the caller
// restates.
func cause(err error) error {
	if fe, ok := err.(*fetch.Error); ok && fe.Err != nil {
		return fe.Err
	}
	return err
}
