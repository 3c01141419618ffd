package fetch

import (
	"io"
	"sync"

	"github.com/rfc1738/fetch/url"
)

// body decorates a handler's Body: read errors name the URL, and Close
// releases the per-host slot once.
type body struct {
	rc   io.ReadCloser
	slot *heldSlot
	c    *Client
	u    *url.URL
	once sync.Once
	cerr error
}

// writableBody is a body whose handler's Body is also an io.Writer (a
// telnet session): only then does the wrapper claim io.Writer, so that
// io.Copy and type assertions see what the handler offers.
type writableBody struct{ *body }

func wrapBody(rc io.ReadCloser, slot *heldSlot, c *Client, u *url.URL) io.ReadCloser {
	b := &body{rc: rc, slot: slot, c: c, u: u}
	if _, ok := rc.(io.Writer); ok {
		return writableBody{b}
	}
	return b
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		err = b.c.decorate("read", b.u, err)
	}
	return n, err
}

func (b *body) Close() error {
	b.once.Do(func() {
		b.cerr = b.rc.Close()
		if b.cerr != nil {
			b.cerr = b.c.decorate("close", b.u, b.cerr)
		}
		b.slot.release()
	})
	return b.cerr
}

// Unwrap returns the handler's own Body, so that what it offers beyond
// io.ReadCloser (a telnet Session's SetWindowSize, a Prospero directory's
// entries) stays reachable through the Client's wrapper, as
// http.ResponseController reaches a ResponseWriter's methods. Read and
// Close the wrapper still: it names the URL in errors and releases the
// host's slot.
func (b *body) Unwrap() io.ReadCloser { return b.rc }

// WriteTo lets io.Copy use the handler body's own WriteTo (e.g. a file's
// sendfile path) while keeping error decoration.
func (b *body) WriteTo(w io.Writer) (int64, error) {
	if wt, ok := b.rc.(io.WriterTo); ok {
		n, err := wt.WriteTo(w)
		if err != nil {
			err = b.c.decorate("read", b.u, err)
		}
		return n, err
	}
	return io.Copy(w, struct{ io.Reader }{b})
}

// Write passes writes through to the session.
func (b writableBody) Write(p []byte) (int, error) {
	n, err := b.rc.(io.Writer).Write(p)
	if err != nil {
		err = b.c.decorate("write", b.u, err)
	}
	return n, err
}
