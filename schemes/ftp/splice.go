package ftp

import (
	"errors"
	"io"
	"net"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// readFrom lets w's ReadFrom take the bytes straight from the data
// connection's socket (wire.Splicer: on Linux an *os.File splices them,
// without a copy through this process), under the idle timeout and the
// request's context. It reports false when it cannot: TLS on the data
// connection, a connection that is not TCP, or a w that is not an
// io.ReaderFrom; WriteTo then copies. The counts, the final reply and the
// Incomplete rules are those of Read.
func (t *transfer) readFrom(w io.Writer) (int64, bool, error) {
	if _, ok := w.(io.ReaderFrom); !ok || t.data.raw == nil || t.data.r != net.Conn(t.data.raw) {
		return 0, false, nil
	}
	tc, ok := wire.TCPConn(t.data.raw.Conn)
	if !ok {
		return 0, false, nil
	}
	t.mu.Lock()
	if t.err != nil {
		err := t.err
		t.mu.Unlock()
		if err == io.EOF {
			err = nil
		}
		return 0, true, err
	}
	t.reading = true
	t.mu.Unlock()

	sp := wire.Splicer{IdleTimeout: t.data.raw.IdleTimeout()}
	n, _, err := sp.Splice(t.ctx, w, nil, tc, -1)
	t.n += n
	var fe *fetch.Error
	output := err != nil && !errors.As(err, &fe)
	switch {
	case output:
		// The output failed: the transfer stays as it is, for the
		// caller to close.
	case err != nil:
		err = t.broken(err)
	default:
		// The data ended.
		err = t.complete()
	}

	t.mu.Lock()
	t.reading = false
	closed := t.closed
	if !output {
		if t.err == nil {
			t.err = err
		}
		err = t.err
	}
	t.mu.Unlock()
	if closed {
		// Close came while the copy went on: it cut the connections,
		// and the cleaning up is done here.
		t.data.close()
		t.drop()
	}
	if err == io.EOF {
		err = nil
	}
	return n, true, err
}
