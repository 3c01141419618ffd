package http

import (
	"compress/flate"
	"compress/gzip"
	"io"
	"sync"
)

// gzipBody decodes a gzip content-encoded body, as net/http's transport
// does for the gzip it asked for. The decoder is made at the first Read,
// and goes back to a pool at the end of the stream.
type gzipBody struct {
	body *h1Body
	zr   *gzip.Reader
	err  error // sticky: the header's error, or io.EOF
}

var gzipReaders sync.Pool

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		zr, _ := gzipReaders.Get().(*gzip.Reader)
		if zr == nil {
			zr = new(gzip.Reader)
		}
		if err := zr.Reset(g.body); err != nil {
			g.err = err
			return 0, err
		}
		g.zr = zr
	}
	n, err := g.zr.Read(p)
	if err == io.EOF {
		// Reset on a flate.Reader allocates nothing.
		g.zr.Reset(eofReader{})
		gzipReaders.Put(g.zr)
		g.zr, g.err = nil, io.EOF
	}
	return n, err
}

// Close closes the body beneath.
func (g *gzipBody) Close() error { return g.body.Close() }

// eofReader is an empty flate.Reader.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
func (eofReader) ReadByte() (byte, error)  { return 0, io.EOF }

var _ flate.Reader = eofReader{}
