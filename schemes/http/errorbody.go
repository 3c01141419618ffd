package http

import (
	"io"

	"github.com/rfc1738/fetch/fetch"
)

// keepErrorBody copies the body of a reply whose status is an error to
// req.ErrorBody, then closes it: drain's counterpart for a caller that
// wants the server's error page (curl's --fail-with-body). Each read has
// the request's idle timeout; a failure to write ends the copy.
func keepErrorBody(w hopWaits, req *fetch.Request, rc io.ReadCloser) {
	defer rc.Close()
	var r io.Reader = rc
	if w.wd != nil {
		r = &armedReader{r: rc, w: w, req: req}
	}
	io.Copy(req.ErrorBody, r)
}

// armedReader arms the hop's watchdog around each read.
type armedReader struct {
	r   io.Reader
	w   hopWaits
	req *fetch.Request
}

func (a *armedReader) Read(p []byte) (int, error) {
	a.w.wd.arm(a.req.EffectiveIdleTimeout(), "reading an error reply's body")
	n, err := a.r.Read(p)
	a.w.wd.disarm()
	return n, err
}
