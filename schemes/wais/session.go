package wais

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// session is one connection to a WAIS server: strictly alternating
// request and response messages (wais.md §1). The server keeps no state
// between them.
type session struct {
	conn  *wire.Conn
	stop  func() bool
	trace *fetch.Trace
	limit int
	// msgSize is the message size the init agreed on: the server's
	// answer to our offer; 0 when unknown (no init, or none said).
	msgSize int
	once    sync.Once
}

// open dials the request's host, ties the connection to ctx, and sends the
// optional init unless the handler skips it.
func (h *Handler) open(ctx context.Context, req *fetch.Request) (*session, error) {
	conn, err := wire.Dial(ctx, req, "tcp", req.URL.HostPort())
	if err != nil {
		return nil, err
	}
	s := &session{conn: conn, stop: conn.Watch(ctx), trace: req.Trace, limit: h.messageLimit()}
	if h.NoInit {
		return s, nil
	}
	r, err := s.roundTrip(encodeInit(implementationName, h.messageSize()), h.initLine(), pduInitResponse)
	if err != nil {
		s.close()
		return nil, err
	}
	if r.Result != 1 {
		s.close()
		return nil, fetch.Errorf(fetch.Auth, "the WAIS server refused the init (result %d)", r.Result)
	}
	s.msgSize = min(r.MessageSize, int(h.messageSize()))
	if s.msgSize > 0 {
		s.trace.Notef("message size agreed: %d bytes", s.msgSize)
	}
	return s, nil
}

// roundTrip sends one APDU, traced as line, and reads and decodes the
// answer, which must be of PDU type want.
func (s *session) roundTrip(a []byte, line string, want byte) (*response, error) {
	s.trace.Send(line)
	if _, err := s.conn.Write(frame(a)); err != nil {
		return nil, ioError(err, "sending a request")
	}
	// freeWAIS writes its answer in two pieces with Nagle's algorithm
	// on: acknowledge the first at once (see wire.QuickAck).
	wire.QuickAck(s.conn)
	b, err := readMessage(s.conn, s.limit)
	if err != nil {
		return nil, err
	}
	r, err := decodeResponse(b)
	if err != nil {
		return nil, err
	}
	s.trace.Recv(r.describe())
	if r.PDU != want {
		return nil, fetch.Errorf(fetch.Protocol, "WAIS response of PDU type %d, want %d", r.PDU, want)
	}
	return r, nil
}

// close ends the session: the client closes first, as WAIS clients do.
// It is safe to call more than once.
func (s *session) close() error {
	var err error
	s.once.Do(func() {
		s.stop()
		err = s.conn.Close()
	})
	return err
}

// Protocol lines, as traced and as returned by Plan.

func (h *Handler) initLine() string {
	n := h.messageSize()
	return fmt.Sprintf("init: protocol-version 1, preferred-message-size %d, maximum-record-size %d, implementation-name %q", n, n, implementationName)
}

func searchLine(db, words string, max uint32) string {
	return fmt.Sprintf("search: database %q, query-type 3, seed-words %q, max-documents %d", db, words, max)
}

func retrieveLine(db, docID, wtype string, start, end int64) string {
	return fmt.Sprintf("retrieve: database %q, query-type 1, element-set %q, docid %s, wt %q, bytes [%s,%s)",
		db, "Document Text", showDocID(docID), wtype, strconv.FormatInt(start, 10), strconv.FormatInt(end, 10))
}

// showDocID renders a DocumentID readably: in the libwww "tag=value;" form
// when it is a list of elements, else %-encoded.
func showDocID(id string) string {
	if s, ok := encodeLibwww(id); ok {
		return s
	}
	return escapeAll(id)
}
