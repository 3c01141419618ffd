package ftp

import "io"

// ascii is the Body of a TYPE A transfer with local line ends: the wire's
// NVT-ASCII line end, CR LF (RFC 959 §3.1.1.1), becomes LF; a CR not
// followed by LF stays. It streams: a CR that ends one read is held until
// the next byte shows what it is.
type ascii struct {
	src io.ReadCloser
	buf []byte // buf[0] is room for a held CR; reads go to buf[1:]
	out []byte // converted bytes not yet returned, within buf
	cr  bool   // a CR ended the last read
	err error  // the source's error, once out is drained
}

func newASCII(src io.ReadCloser) *ascii { return &ascii{src: src} }

func (a *ascii) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(a.out) == 0 {
		if a.err != nil {
			return 0, a.err
		}
		if a.buf == nil {
			a.buf = make([]byte, 1+32<<10)
		}
		n, err := a.src.Read(a.buf[1:])
		a.out = a.convert(n, err)
		if err != nil {
			a.err = err
		}
	}
	n := copy(p, a.out)
	a.out = a.out[n:]
	return n, nil
}

// convert turns the n bytes just read into buf[1:] into local line ends,
// in place from buf[0], and returns them. err is the read's error: at the
// end of the data, a held CR is a lone one.
func (a *ascii) convert(n int, err error) []byte {
	in := a.buf[1 : 1+n]
	w := 0
	if a.cr && (n > 0 || err == io.EOF) {
		a.cr = false
		if n == 0 || in[0] != '\n' {
			a.buf[0] = '\r'
			w = 1
		}
	}
	for i, c := range in {
		if c == '\r' {
			if i+1 == n {
				a.cr = true
				break
			}
			if in[i+1] == '\n' {
				continue
			}
		}
		a.buf[w] = c
		w++
	}
	if a.cr && err == io.EOF {
		a.cr = false
		a.buf[w] = '\r'
		w++
	}
	return a.buf[:w]
}

// Close closes the transfer.
func (a *ascii) Close() error { return a.src.Close() }
