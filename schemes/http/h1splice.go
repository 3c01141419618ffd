package http

import (
	"context"
	"crypto/tls"
	"io"
	"time"

	"github.com/rfc1738/fetch/fetch/wire"
)

// spliceTo copies the rest of a body framed by Content-Length into w: the
// bytes already buffered by a Write, then the rest straight from the
// socket by w's ReadFrom (wire.Splicer: an *os.File splices it on Linux,
// without a copy through this process), under the idle timeout. handled
// is false when it cannot (w not an io.ReaderFrom, no Content-Length, a
// connection that is not TCP or carries TLS, the body already read from or
// closed); Read
// then serves. Once the body is whole the
// connection goes back to the pool, as after a Read to the end. Errors
// are wire.Splicer's: the output's own, or an *fetch.Error for the
// connection and the context.
func (b *h1Body) spliceTo(ctx context.Context, w io.Writer, idle time.Duration) (n int64, handled bool, err error) {
	b.mu.Lock()
	ok := b.left >= 0 && b.read == 0 && !b.closed && !b.done
	b.mu.Unlock()
	if !ok {
		return 0, false, nil
	}
	if _, secure := b.pc.conn.(*tls.Conn); secure {
		return 0, false, nil // the socket carries TLS records, not the body
	}
	tc, ok := wire.TCPConn(b.pc.conn)
	if !ok {
		return 0, false, nil
	}
	sp := wire.Splicer{IdleTimeout: idle}
	n, handled, err = sp.Splice(ctx, w, b.pc.br, tc, b.left)
	if !handled {
		return 0, false, nil
	}
	if err != nil {
		return n, true, err
	}
	b.mu.Lock()
	b.read = b.left
	b.mu.Unlock()
	if err := b.finish(b.reuse); err != nil {
		return n, true, err
	}
	return n, true, nil
}
