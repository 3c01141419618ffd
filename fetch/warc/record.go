package warc

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Tee returns a body to read in place of res.Body: it yields the same
// bytes and spools them while they pass, and its Close closes res.Body and
// then writes the fetch's records. req is the request res answers (nil
// when unknown); it gives the method and the header fields of an HTTP
// request.
//
// An http or https fetch becomes a request record and a response record
// (see WriteHTTP). The response head is rebuilt from res.Status and
// res.Header, with the status line's version and text from res.Extra: the
// exact bytes the server sent are not kept by net/http, so field names are
// canonical and sorted; and net/http removes the chunked transfer coding
// (and the Transfer-Encoding field), so the payload is the entity body
// without it. When the http handler delivers bodies content-encoded (its
// Raw setting), the payload is the body as sent, still gzip, under its
// Content-Encoding field; otherwise net/http has decoded it and removed
// Content-Encoding and Content-Length, and the record says so. The request
// head is rebuilt too: method, target, Host and req.Header. Every other
// scheme becomes a resource record whose Content-Type is res.MediaType or,
// when that is empty, the kind's (a gopher menu is
// "application/gopher-menu", a directory or a list "text/plain").
//
// A body whose read or Close failed is recorded with WARC-Truncated
// "disconnect"; one closed before its end, "unspecified". A session (telnet),
// and a metadata-only fetch (req.Head) of a scheme other than HTTP, are not
// recorded: Tee returns res.Body itself. Close returns res.Body's
// error, else the error of writing the records.
func (w *Writer) Tee(req *fetch.Request, res *fetch.Resource) io.ReadCloser {
	head := req != nil && req.Head
	if res.Kind == fetch.ResourceSession || head && !isHTTP(res.URL) {
		return res.Body
	}
	t := &tee{w: w, rc: res.Body, res: res, date: w.now(), size: res.Size, head: head}
	t.sp, _ = newSpool(w.opts)
	if isHTTP(res.URL) {
		var respHead []byte
		t.reqHead, respHead, t.protocol, t.tls = heads(req, res)
		t.sp.Write(respHead)
	}
	t.sp.payloadStart()
	return t
}

// tee is the body Tee returns.
type tee struct {
	w        *Writer
	rc       io.ReadCloser
	res      *fetch.Resource
	sp       *spool
	reqHead  []byte // the HTTP request head; nil for other schemes
	protocol string // WARC-Protocol; "" for none
	tls      string // a second WARC-Protocol, the TLS version; "" for none
	date     time.Time
	size     int64
	head     bool // an HTTP HEAD: no body to expect
	eof      bool
	failed   bool

	once sync.Once
	err  error
}

func (t *tee) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if n > 0 {
		t.sp.Write(p[:n]) // a spool failure is reported by Close
	}
	switch {
	case err == io.EOF:
		t.eof = true
	case err != nil:
		t.failed = true
	}
	return n, err
}

func (t *tee) Close() error {
	t.once.Do(func() {
		defer t.sp.Close()
		cerr := t.rc.Close()
		truncated := ""
		switch {
		case t.failed || cerr != nil:
			truncated = TruncatedDisconnect
		case !t.eof && !t.head && (t.size < 0 || t.sp.size-max(t.sp.headLen, 0) < t.size):
			truncated = TruncatedUnspecified
		}
		werr := t.write(truncated)
		if cerr != nil {
			t.err = cerr
			return
		}
		if werr != nil {
			t.err = &fetch.Error{Op: "record", URL: t.res.URL.Redacted(), Kind: fetch.Other, Err: werr}
		}
	})
	return t.err
}

func (t *tee) write(truncated string) error {
	if t.sp.err != nil {
		return t.sp.err
	}
	res, w := t.res, t.w
	target := res.URL.Redacted() // a password never goes into the file
	ip := w.peers.lookup(res.URL)
	if t.reqHead == nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.emitFirst(NewRecordID(), &Header{
			Type: TypeResource, TargetURI: target, Date: t.date, IPAddress: ip,
			ContentType: ContentType(res), Truncated: truncated,
		}, t.sp)
	}
	req, err := w.spool(t.reqHead, nil)
	if err != nil {
		return err
	}
	defer req.Close()
	reqID, respID := NewRecordID(), NewRecordID()
	w.mu.Lock()
	defer w.mu.Unlock()
	err = w.emitFirst(reqID, &Header{
		Type: TypeRequest, TargetURI: target, Date: t.date, IPAddress: ip,
		ContentType: "application/http;msgtype=request", ConcurrentTo: []string{respID},
		Fields: protocolFields(t.protocol, t.tls),
	}, req)
	if err != nil {
		return err
	}
	return w.emit(respID, &Header{
		Type: TypeResponse, TargetURI: target, Date: t.date, IPAddress: ip,
		ContentType: "application/http;msgtype=response", ConcurrentTo: []string{reqID},
		Truncated: truncated, Fields: protocolFields(t.protocol, t.tls),
	}, t.sp)
}

// ContentType returns the Content-Type a resource record of res has:
// res.MediaType, else one for its kind.
func ContentType(res *fetch.Resource) string {
	if res.MediaType != "" {
		return res.MediaType
	}
	switch res.Kind {
	case fetch.ResourceMenu:
		return "application/gopher-menu" // Gopher+'s name for a menu
	case fetch.ResourceArticle:
		return "message/rfc822"
	case fetch.ResourceDirectory, fetch.ResourceList, fetch.ResourceMessage:
		return "text/plain"
	}
	return "application/octet-stream"
}

func isHTTP(u *url.URL) bool {
	return u != nil && (u.Scheme == "http" || u.Scheme == "https")
}

// responseHead rebuilds the status line and header of an HTTP response.
func responseHead(res *fetch.Resource) []byte {
	version := res.Extra[fetch.ExtraHTTPVersion]
	if version == "" {
		version = "HTTP/1.1"
	}
	status := res.Extra[fetch.ExtraHTTPStatus]
	if status == "" {
		code := res.Status
		if code == 0 {
			code = http.StatusOK
		}
		status = strconv.Itoa(code) + " " + http.StatusText(code)
	}
	return ResponseHead(version+" "+status, res.Header)
}

// requestHead rebuilds the head of the HTTP request that res answers.
func requestHead(req *fetch.Request, res *fetch.Resource) []byte {
	method := http.MethodGet
	h := http.Header{}
	if req != nil {
		if req.Head {
			method = http.MethodHead
		}
		for k, v := range req.Header {
			h[http.CanonicalHeaderKey(k)] = v
		}
	}
	u := res.URL
	host := u.Host
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	if u.Port != 0 && !(u.Scheme == "http" && u.Port == 80) && !(u.Scheme == "https" && u.Port == 443) {
		host += ":" + strconv.Itoa(u.Port)
	}
	h.Set("Host", host)
	version := res.Extra[fetch.ExtraHTTPVersion]
	if version == "" || strings.HasPrefix(version, "HTTP/2") {
		version = "HTTP/1.1" // HTTP/2 has no request line: its HTTP/1.1 equivalent
	}
	return RequestHead(method, u.HTTP().RequestURI(), version, h)
}
