package wais

import (
	"bytes"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// sim is an in-process WAIS server that behaves as freeWAIS does
// (wais.md §9): relevance search by words, byte-range retrieval with the
// "SF" diagnostic at the end, "S1" for an unknown database.
type sim struct {
	t    testing.TB
	addr string
	db   string
	docs map[string][]byte // DocumentID -> contents
	// behaviour under test
	silent     bool // read requests, answer nothing
	stallAfter int  // >0: answer nothing after this many requests
	cutAfter   int  // >0: close the connection after this many requests
	halfMsg    bool // with cutAfter: send half of the last answer first
	nagle      bool // write each answer in two pieces, Nagle's algorithm on, as freeWAIS does
	init       []byte
	// msgSize, when set, is the message size the init response states
	// (as PreferredMessageSize and MaximumRecordSize); an answer larger
	// than it is sent as an empty APDU, as freeWAIS does.
	msgSize  int
	mu       sync.Mutex
	requests []request
}

func newSim(t testing.TB, db string, docs map[string][]byte) *sim {
	t.Helper()
	s := &sim{t: t, db: db, docs: docs, init: cannedInit(t)}
	s.addr = fetchtest.Serve(t, s.converse)
	return s
}

func (s *sim) Addr() string { return s.addr }

// simDocID makes a freeWAIS-like DocumentID, NUL byte included.
func simDocID(name string, size int) string {
	b := appendStr(nil, 2, "db")
	b = appendStr(b, 3, "0 "+strconv.Itoa(size)+" /docs/"+name)
	b = appendElem(b, 7, []byte{0})
	return string(b)
}

func (s *sim) converse(c net.Conn) {
	if s.nagle {
		c = fetchtest.NagleConn(c)
	}
	for n := 1; ; n++ {
		b, err := readMessage(c, 1<<20)
		if err != nil {
			return
		}
		r, err := decodeRequest(b)
		if err != nil {
			s.t.Errorf("sim: %v", err)
			return
		}
		s.mu.Lock()
		s.requests = append(s.requests, r)
		s.mu.Unlock()
		if s.silent || s.stallAfter > 0 && n > s.stallAfter {
			continue
		}
		var out []byte
		switch {
		case r.PDU == pduInit && s.msgSize > 0:
			z := appendNum([]byte{pduInitResponse, 1}, tagPreferredMessageSize, uint32(s.msgSize))
			z = appendNum(z, tagMaximumRecordSize, uint32(s.msgSize))
			out = frame(apdu(z, nil))
		case r.PDU == pduInit:
			out = s.init
		default:
			a := s.answer(r)
			if s.msgSize > 0 && len(a) > s.msgSize {
				a = nil
			}
			out = frame(a)
		}
		if s.cutAfter > 0 && n >= s.cutAfter {
			if s.halfMsg {
				c.Write(out[:len(out)/2])
			}
			return
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// searchResponse builds a PDU 23 with the given WAIS elements.
func searchResponse(status byte, records int, user []byte) []byte {
	z := []byte{pduSearchResponse, status, 0, 0, 0, byte(records >> 16), byte(records >> 8), byte(records), 0, 0, 0}
	z = appendNum(z, tagPresentStatus, 0)
	if user == nil {
		return apdu(z, nil)
	}
	return apdu(z, appendElem(nil, tagUserInformationLength, user))
}

func hitGroup(id, headline string, score, length int) []byte {
	var g []byte
	g = appendElem(g, tagDocumentID, []byte(id))
	g = appendNum(g, tagScore, uint32(score))
	g = appendNum(g, tagBestMatch, 0)
	g = appendNum(g, tagDocumentLength, uint32(length))
	g = appendNum(g, tagLines, 1)
	g = appendElem(g, tagTypeBlock, appendStr(nil, tagType, "TEXT"))
	g = appendStr(g, tagSource, "/srv/"+headline)
	g = appendStr(g, tagDate, "0")
	g = appendStr(g, tagHeadline, headline)
	return appendElem(nil, tagDocumentHeaderGroup, g)
}

func (s *sim) answer(r request) []byte {
	if r.DB != s.db {
		return searchResponse(0, 1, appendDiag(nil, Diagnostic{Code: "S1", Text: "The following database is not available: " + r.DB}))
	}
	if r.QueryType == "3" {
		var user []byte
		n := 0
		for id, doc := range s.docs {
			for _, w := range strings.Fields(r.Seed) {
				if bytes.Contains(bytes.ToLower(doc), []byte(strings.ToLower(w))) {
					user = append(user, hitGroup(id, "doc "+strconv.Itoa(len(doc)), 100, len(doc))...)
					n++
					break
				}
			}
		}
		if n == 0 {
			user = hitGroup(simDocID("db.cat", 3), noResultPrefix+" Here's the Catalog for database: "+s.db, 0, 3)
			n = 1
		}
		return searchResponse(1, n, user)
	}
	doc, ok := s.docs[r.DocID()]
	from, _ := strconv.Atoi(r.From())
	to, _ := strconv.Atoi(r.To())
	sf := appendDiag(nil, Diagnostic{Code: "SF", Text: "Request out of range", Flag: 1})
	if !ok || from > len(doc) {
		return searchResponse(0, 1, sf)
	}
	text := doc[from:min(to, len(doc))]
	g := appendElem(nil, tagDocumentID, []byte(r.DocID()))
	g = appendNum(g, tagVersionNumber, 0)
	g = appendElem(g, tagDocumentText, text)
	user := appendElem(nil, tagDocumentTextGroup, g)
	if to > len(doc) {
		return searchResponse(0, 2, append(user, sf...))
	}
	return searchResponse(0, 1, user)
}
