package warc

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/rfc1738/fetch/fetch"
)

// heads returns the request head and the response head that the records
// of the exchange res answers hold, and the exchange's protocols for
// WARC-Protocol: the HTTP one, and the TLS version ("" when unknown or
// none).
//
// They are the bytes that went over the connection when the handler kept
// them (Resource.Capture, which Do asks for): the request as written, the
// reply's head as read, field names, order and all. Two things bend it,
// so that a reader of the record finds the body the head describes: a
// chunked reply's body is recorded without its chunking (the payload is
// the entity body, WARC 1.1 §6.3.2), and its head without the
// Transfer-Encoding field; and when the body the caller reads was
// decoded (the handler undid a Content-Encoding), the heads are rebuilt
// from the Resource, as they are when the handler kept none (HTTP/2,
// whose heads are frames: WARC-Protocol says "h2" and the heads are their
// rendering as HTTP/1.1).
func heads(req *fetch.Request, res *fetch.Resource) (request, response []byte, protocol, tls string) {
	c := res.Capture
	if c != nil {
		protocol, tls = c.Protocol, c.TLS
	}
	if c != nil && !c.Rendered && len(c.Request) > 0 && len(c.Reply) > 0 && asSent(c.Reply, res.Header) {
		return c.Request, withoutField(c.Reply, "Transfer-Encoding"), protocol, tls
	}
	return requestHead(req, res), responseHead(res), protocol, tls
}

// asSent reports whether the body of a reply whose head is head comes as
// it was sent: head names no Content-Encoding that h (the Resource's
// header, from which a handler that decodes the body removes it) lost.
func asSent(head []byte, h http.Header) bool {
	return len(fieldLines(head, "Content-Encoding")) == 0 || h.Get("Content-Encoding") != ""
}

// fieldLines returns the lines of head holding the field name (any case).
func fieldLines(head []byte, name string) [][]byte {
	var out [][]byte
	for rest := head; len(rest) > 0; {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		if i := bytes.IndexByte(line, ':'); i > 0 && strings.EqualFold(string(line[:i]), name) {
			out = append(out, line)
		}
		rest = after
	}
	return out
}

// withoutField returns head without the lines of the field name; head
// itself when it has none.
func withoutField(head []byte, name string) []byte {
	if len(fieldLines(head, name)) == 0 {
		return head
	}
	var b bytes.Buffer
	for rest := head; len(rest) > 0; {
		line, after, found := bytes.Cut(rest, []byte("\n"))
		if i := bytes.IndexByte(line, ':'); !(i > 0 && strings.EqualFold(string(line[:i]), name)) {
			b.Write(line)
			if found {
				b.WriteByte('\n')
			}
		}
		rest = after
	}
	return b.Bytes()
}

// protocolFields returns the WARC-Protocol fields of protocol and tls, the
// HTTP protocol and the TLS version under it, none for "".
func protocolFields(protocol, tls string) []Field {
	var f []Field
	if protocol != "" {
		f = append(f, Field{"WARC-Protocol", protocol})
	}
	if tls != "" {
		f = append(f, Field{"WARC-Protocol", tls})
	}
	return f
}
