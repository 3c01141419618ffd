// Package wais fetches wais URLs (RFC 1738 §3.9) by speaking WAIS, the
// Z39.50-1988 dialect of RFC 1625, over TCP (port 210), as freeWAIS-sf's
// waisserver understands it.
//
//   - wais://host/database?words runs a relevance search; the body is the
//     hit list, one hit a line (see Hit.AppendLine), Kind fetch.ResourceList.
//   - wais://host/database/wtype/wpath retrieves the document whose
//     DocumentID is wpath, in byte ranges, streamed; libwww's
//     "tag=value;" wpath and its database/wtype/length/wpath layout are
//     accepted too.
//   - wais://host/database delivers the database's source description
//     (the WSRC document the server offers for an empty search), or the
//     list of what that search offered when there is none.
//
// A search hit's URL carries the length the search gave in libwww's
// database/wtype/length/wpath layout, which bounds its retrieval and is
// the size -I reports; only url.ParseLenient takes that layout.
//
// The codec (codec.go, frame.go, apdu.go) follows the wire format as
// recorded from freeWAIS-sf 2.2.10 (testdata/transcripts), not the 1990
// prototype specification, whose tag numbers differ from what servers send.
//
// # Against the real server
//
// Issue 28 records a check against freeWAIS-sf 2.2.10 rebuilt from source
// (no Debian package has it; CI replays its recorded conversations): every
// search, and every retrieval at 18 chunk sizes, passed. It also measured
// a stall: freeWAIS writes each answer in two pieces with Nagle's
// algorithm on, so the second waits for the client's acknowledgement of
// the first, which a client awaiting the answer sends only when its
// delayed-ACK timer fires (about 45 ms an exchange). The 2.1 MB document
// took 23.7 s in 4096-byte chunks (0.27 s against the same server with
// TCP_NODELAY forced), and 0.9 s at the default chunk size (0.04 s). The
// session now acknowledges at once where it awaits an answer
// (wire.QuickAck, TCP_QUICKACK on Linux); TestDelayedAck reproduces the
// server's two-piece writes. The figures are the issue's, from the live
// server; they were not measured again here.
package wais

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// implementationName is sent in the init request.
const implementationName = "fetch"

// Handler fetches wais URLs. Its zero value is ready to use, and it is safe
// for concurrent use: each fetch has a connection of its own.
type Handler struct {
	// ChunkSize is the size of each byte range a retrieval asks for, at
	// most what fits in the message size the init agreed on (a larger
	// range makes freeWAIS answer with an empty message). Zero means as
	// large as fits, or 10000 (CERN libwww's size) when the init said
	// nothing or was skipped.
	ChunkSize int
	// MaxHits is the MaxDocumentsRetrieved of a search. Zero means 40,
	// what waissearch sends.
	MaxHits int
	// NoInit skips the init exchange, which freeWAIS does not require.
	// The default (false) sends it, as older servers expect.
	NoInit bool
	// MaxMessage bounds the length of one message from the server. Zero
	// means 1 MiB, or twice ChunkSize plus 64 KiB when that is larger.
	MaxMessage int
}

var (
	_ fetch.Handler = (*Handler)(nil)
	_ fetch.Planner = (*Handler)(nil)
)

// defaultChunk is the range asked for when the message size is unknown.
const defaultChunk = 10000

// chunkOverhead is what a retrieval response holds besides the document's
// bytes and DocumentID: headers, tags and lengths, with room to spare.
const chunkOverhead = 1024

func (h *Handler) chunkSize() int64 {
	if h.ChunkSize > 0 {
		return int64(h.ChunkSize)
	}
	return defaultChunk
}

// planChunk is the range Plan shows for document docID: chunkFor's answer
// if the server agreed on the whole message size the init offers.
func (h *Handler) planChunk(docID string) int64 {
	if h.NoInit {
		return h.chunkSize()
	}
	return h.chunkFor(&session{msgSize: int(h.messageSize())}, docID)
}

// chunkFor is the range to ask for of document docID on session s: the
// handler's ChunkSize (or, when zero, as much as fits), capped so that the
// response fits in the message size the init agreed on.
func (h *Handler) chunkFor(s *session, docID string) int64 {
	c := h.chunkSize()
	if s.msgSize <= 0 {
		return c
	}
	fits := max(int64(s.msgSize-chunkOverhead-len(docID)), 512)
	if h.ChunkSize <= 0 || c > fits {
		c = fits
	}
	return c
}

func (h *Handler) maxHits() uint32 {
	if h.MaxHits > 0 && h.MaxHits < 1<<24 {
		return uint32(h.MaxHits)
	}
	return 40
}

func (h *Handler) messageLimit() int {
	if h.MaxMessage > 0 {
		return h.MaxMessage
	}
	return max(1<<20, 2*int(h.chunkSize())+64<<10)
}

// messageSize is what the init offers as the preferred and maximum
// message size.
func (h *Handler) messageSize() uint32 {
	return uint32(max(100000, min(h.messageLimit(), 1<<30)))
}

// checkFields refuses a decoded CR, LF or NUL in the fields that are text
// (RFC 1738 §6). The DocumentID is opaque binary data in a length-prefixed
// element, sent back exactly as the server issued it, and is not checked.
func checkFields(t target) error {
	for _, f := range []struct{ name, v string }{{"database", t.Database}, {"search", t.Search}, {"wtype", t.WType}} {
		if i := strings.IndexAny(f.v, "\r\n\x00"); i >= 0 {
			return fetch.Errorf(fetch.Refused, "the WAIS %s holds a decoded control character %q (RFC 1738 §6)", f.name, f.v[i])
		}
	}
	return nil
}

// Fetch runs the search, retrieval or description the URL names. A
// retrieval's Body streams the document range by range over the open
// connection; closing it closes the connection.
func (h *Handler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	t, err := parseTarget(req.URL)
	if err != nil {
		return nil, err
	}
	if err := checkFields(t); err != nil {
		return nil, err
	}
	s, err := h.open(ctx, req)
	if err != nil {
		return nil, err
	}
	var res *fetch.Resource
	switch {
	case t.HasSearch:
		res, err = h.searchResource(s, req, t)
	case t.HasDoc:
		res, err = h.retrieve(s, req, t.Database, t.DocID, t.WType, t.Length)
	default:
		res, err = h.describe(s, req, t)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	if req.Head {
		res.Body.Close()
		res.Body = fetch.NoBody
	}
	return res, nil
}

// search runs a relevance search and returns the hits, the "no hits"
// catalogue pseudo-hit left out. A diagnostic without hits is an error:
// S1 (database not available) is Kind NotFound.
func (h *Handler) search(s *session, base *url.URL, db, words string) ([]Hit, error) {
	max := h.maxHits()
	r, err := s.roundTrip(encodeSearch(db, words, max), searchLine(db, words, max), pduSearchResponse)
	if err != nil {
		return nil, err
	}
	if len(r.Hits) == 0 && len(r.Diags) > 0 {
		return nil, diagError(r.Diags[0], true)
	}
	for _, d := range r.Diags {
		s.trace.Notef("diagnostic after the hits: %s", d)
	}
	hits := make([]Hit, 0, len(r.Hits))
	for _, hit := range r.Hits {
		if isNoResult(hit) {
			s.trace.Notef("no hits (the server offered its catalogue instead)")
			continue
		}
		hit.URL = lengthURL(base, db, hit.Type(), hit.DocID, hit.Length)
		hits = append(hits, hit)
	}
	return hits, nil
}

// Search runs the relevance search a wais://host/database?words URL names
// and returns its hits, best first; the "no hits" pseudo-hit is left out.
// Each hit's URL retrieves its document.
func (h *Handler) Search(ctx context.Context, req *fetch.Request) ([]Hit, error) {
	t, err := parseTarget(req.URL)
	if err != nil {
		return nil, err
	}
	if !t.HasSearch {
		return nil, fetch.Errorf(fetch.Usage, "not a WAIS search URL (database?words)")
	}
	if err := checkFields(t); err != nil {
		return nil, err
	}
	s, err := h.open(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.close()
	return h.search(s, req.URL, t.Database, t.Search)
}

func (h *Handler) searchResource(s *session, req *fetch.Request, t target) (*fetch.Resource, error) {
	hits, err := h.search(s, req.URL, t.Database, t.Search)
	s.close()
	if err != nil {
		return nil, err
	}
	return listResource(hits), nil
}

// listResource renders hits one a line.
func listResource(hits []Hit) *fetch.Resource {
	var b []byte
	for _, hit := range hits {
		b = hit.AppendLine(b)
	}
	return &fetch.Resource{
		Kind:      fetch.ResourceList,
		MediaType: "text/plain",
		Size:      int64(len(b)),
		Extra:     map[string]string{ExtraHits: strconv.Itoa(len(hits))},
		Body:      io.NopCloser(bytes.NewReader(b)),
	}
}

// describe answers wais://host/database: the protocol has no "describe"
// request, but freeWAIS answers a search without words with the source
// description (type WSRC) and the catalogue. The WSRC document is what
// clients of the time showed for a database, so it is delivered; when the
// server offers none, the list of what it offered is.
func (h *Handler) describe(s *session, req *fetch.Request, t target) (*fetch.Resource, error) {
	hits, err := h.search(s, req.URL, t.Database, "")
	if err != nil {
		return nil, err
	}
	for _, hit := range hits {
		for _, ty := range hit.Types {
			if ty == "WSRC" {
				return h.retrieve(s, req, t.Database, hit.DocID, ty, -1)
			}
		}
	}
	s.close()
	if len(hits) == 0 {
		return nil, fetch.Errorf(fetch.NotFound, "the WAIS database %q offers no description", t.Database)
	}
	return listResource(hits), nil
}

// diagError turns a diagnostic into an error: S1 (database not available)
// and SF on a first range (no such document) are Kind NotFound, others
// Kind Other.
func diagError(d Diagnostic, first bool) error {
	switch {
	case d.Code == "S1", d.Code == "SF" && first:
		return fetch.Errorf(fetch.NotFound, "WAIS diagnostic %w", d)
	}
	return fetch.Errorf(fetch.Other, "WAIS diagnostic %w", d)
}

// mediaType maps a WAIS type to a MIME type, or "".
func mediaType(wtype string) string {
	switch strings.ToUpper(wtype) {
	case "TEXT", "TEXT-FTP", "FREE-TEXT":
		return "text/plain"
	case "HTML", "TEXT-HTML":
		return "text/html"
	case "WSRC":
		return "application/x-wais-source"
	case "GIF":
		return "image/gif"
	case "JPEG", "JPG":
		return "image/jpeg"
	case "PS":
		return "application/postscript"
	}
	return ""
}

// Plan returns the requests the URL means, one line each, without
// connecting. A description's retrieval depends on the server's answer and
// is named, not planned.
func (h *Handler) Plan(req *fetch.Request) ([]string, error) {
	t, err := parseTarget(req.URL)
	if err != nil {
		return nil, err
	}
	if err := checkFields(t); err != nil {
		return nil, err
	}
	var lines []string
	if !h.NoInit {
		lines = append(lines, h.initLine())
	}
	switch {
	case t.HasSearch:
		lines = append(lines, searchLine(t.Database, t.Search, h.maxHits()))
	case t.HasDoc:
		chunk, fewer := h.planChunk(t.DocID), ""
		if !h.NoInit {
			fewer = " (fewer if the init agrees on a smaller message size)"
		}
		start, end := req.Offset, req.Offset+chunk
		if t.Length >= 0 && end > t.Length {
			end = t.Length
		}
		lines = append(lines, retrieveLine(t.Database, t.DocID, t.WType, start, end))
		if t.Length < 0 || end < t.Length {
			lines = append(lines, "retrieve: the same for each following range of "+strconv.FormatInt(chunk, 10)+
				" bytes"+fewer+", until a short range or the server's out-of-range diagnostic")
		}
	default:
		lines = append(lines, searchLine(t.Database, "", h.maxHits()),
			"retrieve: the WSRC source description the search offers, in ranges of "+strconv.FormatInt(h.planChunk(""), 10)+" bytes")
	}

	return lines, nil
}
