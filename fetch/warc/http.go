package warc

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Exchange is one HTTP request and its response, as WriteHTTP records
// them.
type Exchange struct {
	// TargetURI is the URI requested.
	TargetURI string
	// Date is the moment of the request; the zero Time means now.
	Date time.Time
	// IPAddress is the server's numeric address, "" when unknown.
	IPAddress string
	// Request is the request's head: request line and header fields,
	// each ending in CR LF, and the empty line. See RequestHead.
	Request []byte
	// Response is the response's head: status line and header fields,
	// each ending in CR LF, and the empty line. See ResponseHead.
	Response []byte
	// Body is the response's entity body, as it came (still
	// content-encoded, without the chunked transfer coding). Nil means
	// none.
	Body io.Reader
	// Truncated is the response record's WARC-Truncated: "" when Body
	// holds the whole entity body.
	Truncated string
	// Protocol is both records' WARC-Protocol ("http/1.1", "h2"); ""
	// omits it.
	Protocol string
	// TLS is both records' second WARC-Protocol, the TLS version the
	// exchange went over ("tls/1.3"); "" omits it.
	TLS string
}

// WriteHTTP writes a request record and a response record (WARC 1.1 §6.3,
// §6.4) with Content-Types "application/http;msgtype=request" and
// "application/http;msgtype=response", each naming the other in
// WARC-Concurrent-To. The body is spooled before either is written, and the
// two are written one after the other.
func (w *Writer) WriteHTTP(x *Exchange) (requestID, responseID string, err error) {
	resp, err := w.spool(x.Response, x.Body)
	if err != nil {
		return "", "", err
	}
	defer resp.Close()
	req, err := w.spool(x.Request, nil)
	if err != nil {
		return "", "", err
	}
	defer req.Close()
	date := x.Date
	if date.IsZero() {
		date = w.now()
	}
	requestID, responseID = NewRecordID(), NewRecordID()
	w.mu.Lock()
	defer w.mu.Unlock()
	err = w.emitFirst(requestID, &Header{
		Type: TypeRequest, TargetURI: x.TargetURI, Date: date, IPAddress: x.IPAddress,
		ContentType: "application/http;msgtype=request", ConcurrentTo: []string{responseID},
		Fields: protocolFields(x.Protocol, x.TLS),
	}, req)
	if err != nil {
		return "", "", err
	}
	err = w.emit(responseID, &Header{
		Type: TypeResponse, TargetURI: x.TargetURI, Date: date, IPAddress: x.IPAddress,
		ContentType: "application/http;msgtype=response", ConcurrentTo: []string{requestID},
		Truncated: x.Truncated, Fields: protocolFields(x.Protocol, x.TLS),
	}, resp)
	if err != nil {
		return "", "", err
	}
	return requestID, responseID, nil
}

// RequestHead formats an HTTP/1.1 request head: "METHOD TARGET PROTO", the
// header fields in h (names sorted, values in order), and the empty line.
// Values holding CR or LF are dropped.
func RequestHead(method, target, proto string, h http.Header) []byte {
	return head(method+" "+target+" "+proto, h)
}

// ResponseHead formats an HTTP response head: the status line ("HTTP/1.1
// 200 OK"), the header fields in h (names sorted, values in order), and the
// empty line. Values holding CR or LF are dropped.
func ResponseHead(statusLine string, h http.Header) []byte {
	return head(statusLine, h)
}

func head(first string, h http.Header) []byte {
	var b strings.Builder
	b.WriteString(strings.NewReplacer("\r", "", "\n", "").Replace(first))
	b.WriteString("\r\n")
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if strings.ContainsAny(k, "\r\n: ") {
			continue
		}
		for _, v := range h[k] {
			if strings.ContainsAny(v, "\r\n") {
				continue
			}
			b.WriteString(k + ": " + v + "\r\n")
		}
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}
