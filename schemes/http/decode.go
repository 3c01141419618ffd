package http

import (
	"compress/flate"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/rfc1738/fetch/fetch"
)

// acceptEncoding is the Accept-Encoding fetch sends: the content codings
// decodeBody decodes.
const acceptEncoding = "gzip, br, zstd"

// maxZstdWindow bounds the memory a zstd stream may make the decoder hold
// (its window): 64 MiB, more than any server's default (8 MiB).
const maxZstdWindow = 64 << 20

// decode undoes the reply's content coding unless the body is to stay as
// sent: with Raw, or when the request chose its own Accept-Encoding (or
// removed fetch's).
func (h *Handler) decode(req *fetch.Request, resp *http.Response) {
	if h.Raw || req.Head || req.Header.Get("Accept-Encoding") != "" || removed(req.Header, "Accept-Encoding") {
		return
	}
	if ce := decodeBody(resp); ce != "" {
		req.Trace.Notef("decoding the %s content-encoding", fetch.Sanitize(ce))
	}
}

// decodeBody is the one place where a reply's content coding (RFC 9110
// §8.4) is undone, for both transports: gzip (or x-gzip), br (RFC 7932)
// and zstd (RFC 8878), stacked as the server listed them. It replaces
// resp.Body with the decoded stream, removes Content-Encoding and
// Content-Length (the decoded size is not known), and returns the
// codings it undid, or "" when it left the body alone: no coding, or one
// it does not know (the body is then delivered as sent).
func decodeBody(resp *http.Response) string {
	ce := strings.TrimSpace(resp.Header.Get("Content-Encoding"))
	if ce == "" || resp.Body == nil || resp.Body == http.NoBody {
		return ""
	}
	var codings []string
	for _, c := range strings.Split(ce, ",") {
		c = strings.ToLower(strings.TrimSpace(c))
		switch c {
		case "gzip", "x-gzip", "br", "zstd":
			codings = append(codings, c)
		case "identity", "":
		default:
			return ""
		}
	}
	if len(codings) == 0 || len(codings) > 3 {
		return ""
	}
	d := &decodedBody{wire: resp.Body}
	var r io.Reader = resp.Body
	for i := len(codings) - 1; i >= 0; i-- { // the last applied is undone first
		r = d.layer(codings[i], r)
	}
	d.r = r
	resp.Body = d
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	return ce
}

// decodedBody is a reply's body with its content codings undone. The
// decoders are made at the first Read, and gzip's go back to a pool at
// the end of its stream; zstd's is closed with the body.
type decodedBody struct {
	wire  io.ReadCloser // the body as sent
	r     io.Reader     // the decoded stream
	zstds []*zstd.Decoder
}

// layer returns the decoder of one coding over r.
func (d *decodedBody) layer(coding string, r io.Reader) io.Reader {
	switch coding {
	case "br":
		return &lazyReader{open: func() (io.Reader, error) { return brotli.NewReader(r), nil }}
	case "zstd":
		return &lazyReader{open: func() (io.Reader, error) {
			zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow), zstd.WithDecoderLowmem(true))
			if err != nil {
				return nil, err
			}
			d.zstds = append(d.zstds, zr)
			return zr, nil
		}}
	}
	return &gzipReader{src: r}
}

func (d *decodedBody) Read(p []byte) (int, error) { return d.r.Read(p) }

// Close closes the zstd decoders and the body beneath.
func (d *decodedBody) Close() error {
	for _, z := range d.zstds {
		z.Close()
	}
	d.zstds = nil
	return d.wire.Close()
}

// lazyReader makes its reader at the first Read.
type lazyReader struct {
	open func() (io.Reader, error)
	r    io.Reader
	err  error
}

func (l *lazyReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if l.r == nil {
		if l.r, l.err = l.open(); l.err != nil {
			return 0, l.err
		}
	}
	return l.r.Read(p)
}

// gzipReader decodes gzip with a pooled gzip.Reader.
type gzipReader struct {
	src io.Reader
	zr  *gzip.Reader
	err error // sticky: the header's error, or io.EOF
}

var gzipReaders sync.Pool

func (g *gzipReader) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		zr, _ := gzipReaders.Get().(*gzip.Reader)
		if zr == nil {
			zr = new(gzip.Reader)
		}
		if err := zr.Reset(g.src); err != nil {
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

// eofReader is an empty flate.Reader.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
func (eofReader) ReadByte() (byte, error)  { return 0, io.EOF }

var _ flate.Reader = eofReader{}

// isCorrupt reports whether err is a decoder's complaint about a corrupt
// stream, of any of the codings.
func isCorrupt(err error) bool {
	var ce flate.CorruptInputError
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &ce) {
		return true
	}
	for _, z := range []error{zstd.ErrReservedBlockType, zstd.ErrCompressedSizeTooBig, zstd.ErrBlockTooSmall,
		zstd.ErrUnexpectedBlockSize, zstd.ErrMagicMismatch, zstd.ErrWindowSizeExceeded, zstd.ErrWindowSizeTooSmall,
		zstd.ErrFrameSizeExceeded, zstd.ErrFrameSizeMismatch, zstd.ErrCRCMismatch, zstd.ErrUnknownDictionary} {
		if errors.Is(err, z) {
			return true
		}
	}
	msg := err.Error()
	return strings.HasPrefix(msg, "brotli: ") || strings.HasPrefix(msg, "invalid input: ")
}

// Decode undoes the content coding of a Resource that a Handler with Raw
// delivered as sent (its Extra names the coding under
// fetch.ExtraContentEncoding), with the decoders Fetch uses: a program
// that records the bytes as sent, as a WARC writer does, and delivers
// them decoded too. It replaces res.Body with the decoded stream, removes
// the Extra key and makes Size -1, and returns the codings it undid; ""
// when the body has none, or one it does not know (it is then left as
// sent). A corrupt stream fails on Read with Kind Protocol.
func Decode(res *fetch.Resource) string {
	ce := res.Extra[fetch.ExtraContentEncoding]
	if ce == "" {
		return ""
	}
	resp := &http.Response{Header: http.Header{"Content-Encoding": {ce}}, Body: res.Body}
	if decodeBody(resp) == "" {
		return ""
	}
	delete(res.Extra, fetch.ExtraContentEncoding)
	res.Size = -1
	res.Body = decodeErrors{resp.Body}
	return ce
}

// decodeErrors classifies the errors of a decoded body read apart from
// the Handler's own body: a corrupt stream is Kind Protocol.
type decodeErrors struct{ io.ReadCloser }

func (d decodeErrors) Read(p []byte) (int, error) {
	n, err := d.ReadCloser.Read(p)
	if err != nil && err != io.EOF && isCorrupt(err) {
		err = fetch.Errorf(fetch.Protocol, "the content-encoded body does not decode: %w", err)
	}
	return n, err
}
