package http

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// body is a reply's body as a Resource delivers it: each Read waits at most
// the idle timeout, errors are classified (a cut stream is Kind Incomplete,
// never io.EOF), and Close ends the request. On net/http's transport the
// watchdog bounds each Read and Close cancels the hop's context; on the h1
// transport (wd and cancel nil) the connection's deadlines bound it.
type body struct {
	rc     io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	wd     *watchdog
	idle   time.Duration
	n      int64

	once sync.Once
}

func newBody(rc io.ReadCloser, ctx context.Context, cancel context.CancelCauseFunc, wd *watchdog, idle time.Duration) *body {
	if idle <= 0 {
		idle = fetch.DefaultIdleTimeout
	}
	var b *body
	if hb, ok := rc.(*h1Body); ok {
		b = &hb.outer // made with it, in one allocation
	} else {
		b = new(body)
	}
	b.rc, b.ctx, b.cancel, b.wd, b.idle = rc, ctx, cancel, wd, idle
	return b
}

// Read reads from the reply within the idle timeout.
func (b *body) Read(p []byte) (int, error) {
	if b.wd != nil {
		b.wd.arm(b.idle, "reading the body")
	}
	n, err := b.rc.Read(p)
	if b.wd != nil {
		b.wd.disarm()
	}
	b.n += int64(n)
	if err != nil && err != io.EOF {
		err = b.classify(err)
	}
	return n, err
}

// copyBufs holds the buffers of WriteTo.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// WriteTo copies the body to w in large reads, so that io.Copy makes few
// system calls. A body framed by Content-Length on a plain HTTP/1.1
// connection goes to an w that is an io.ReaderFrom (an output file)
// straight from the socket instead (see h1Body.spliceTo).
func (b *body) WriteTo(w io.Writer) (int64, error) {
	if _, ok := w.(io.ReaderFrom); ok {
		if hb, ok := b.rc.(*h1Body); ok {
			n, handled, err := hb.spliceTo(b.ctx, w, b.idle)
			b.n += n
			if handled {
				// The connection's and the context's failures are told as
				// Read tells them; the output's own stands.
				var fe *fetch.Error
				switch {
				case err == nil:
					return n, nil
				case !errors.As(err, &fe):
				case b.ctx.Err() == nil && errors.Is(err, os.ErrDeadlineExceeded):
					err = fetch.Errorf(fetch.Timeout, "reading the body: nothing for %v", b.idle)
				case errors.Is(err, io.ErrUnexpectedEOF):
					err = b.classify(io.ErrUnexpectedEOF)
				default:
					err = b.classify(fe.Err)
				}
				return n, err
			}
		}
	}
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	// Both sides are wrapped so that neither a ReaderFrom on w nor this
	// method itself takes over from the buffer.
	return io.CopyBuffer(struct{ io.Writer }{w}, struct{ io.Reader }{b}, buf)
}

// Close closes the reply's body and ends the request. It is safe to call
// more than once.
func (b *body) Close() error {
	b.once.Do(func() {
		b.rc.Close()
		if b.wd != nil {
			b.wd.stop()
			b.cancel(errClosed)
		}
	})
	return nil
}

// classify turns a read error into an *Error: the context's cause when the
// request was cancelled or timed out, Protocol for a corrupt gzip, br or zstd stream,
// and Incomplete for anything that cut the stream (a short body, a broken
// chunked encoding, a reset connection).
func (b *body) classify(err error) error {
	if b.ctx.Err() != nil && !errors.Is(context.Cause(b.ctx), errClosed) {
		return causeError(b.ctx)
	}
	switch {
	case isCorrupt(err):
		return fetch.Errorf(fetch.Protocol, "corrupt content-encoded body: %v", err)
	case errors.Is(err, errClosed), errors.Is(err, context.Canceled) && errors.Is(context.Cause(b.ctx), errClosed):
		return fetch.Errorf(fetch.Other, "read after Close")
	}
	if k := fetch.KindOf(err); k == fetch.Timeout {
		return fetch.Wrap(k, err)
	}
	what := "the connection ended"
	if strings.Contains(err.Error(), "chunk") {
		what = "the chunked stream broke off"
	}
	return fetch.Errorf(fetch.Incomplete, "%s after %d bytes of the body: %w", what, b.n, err)
}
