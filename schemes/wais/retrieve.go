package wais

import (
	"io"
	"sync/atomic"

	"github.com/rfc1738/fetch/fetch"
)

// retrieve fetches the first range of a document now, so that a missing
// document fails Fetch with Kind NotFound, and returns a Resource whose
// Body asks for the following ranges as it is read (wais.md §7, §10). A
// length of -1 means the document's length is unknown.
func (h *Handler) retrieve(s *session, req *fetch.Request, db, docID, wtype string, length int64) (*fetch.Resource, error) {
	d := &docReader{s: s, db: db, docID: docID, wtype: wtype, next: req.Offset, chunk: h.chunkFor(s, docID), length: length}
	if err := d.fill(true); err != nil {
		return nil, err
	}
	size := int64(-1)
	switch {
	case length >= 0:
		size = length - req.Offset
	case d.done && d.err == nil:
		size = int64(len(d.buf))
	}
	return &fetch.Resource{
		Kind:      fetch.ResourceFile,
		MediaType: mediaType(wtype),
		Size:      size,
		Offset:    req.Offset,
		Extra:     map[string]string{ExtraType: wtype},
		Body:      d,
	}, nil
}

// docReader streams a document: each range [next, next+chunk) is one
// request and one response, read whole (bounded by the message limit), so
// memory stays at one chunk whatever the document's size.
type docReader struct {
	s      *session
	db     string
	docID  string
	wtype  string
	next   int64 // the offset of the next range to ask for
	chunk  int64
	length int64 // -1 when unknown

	buf    []byte      // received and not yet read
	done   bool        // the document has ended
	err    error       // returned once buf is drained
	closed atomic.Bool // set by Close, which may race with a Read
}

// fill asks for the next range. It stops the document at a short range or
// at the server's "SF" out-of-range diagnostic, and at the known length.
func (d *docReader) fill(first bool) error {
	end := d.next + d.chunk
	if d.length >= 0 {
		if d.next >= d.length {
			d.finish()
			return nil
		}
		end = min(end, d.length)
	}
	r, err := d.s.roundTrip(encodeRetrieve(d.db, []byte(d.docID), d.wtype, d.next, end),
		retrieveLine(d.db, d.docID, d.wtype, d.next, end), pduSearchResponse)
	if err != nil {
		return err
	}
	outOfRange := false
	for _, dg := range r.Diags {
		if dg.Code != "SF" || len(r.Texts) == 0 && first {
			return diagError(dg, first)
		}
		outOfRange = true
	}
	if len(r.Texts) == 0 && !outOfRange {
		return fetch.Errorf(fetch.Protocol, "WAIS retrieval: %v", errNoAnswer)
	}
	var got int64
	d.buf = d.buf[:0]
	for _, t := range r.Texts {
		got += int64(len(t.Text))
		d.buf = append(d.buf, t.Text...)
	}
	asked := end - d.next
	if got > asked {
		return fetch.Errorf(fetch.Protocol, "WAIS retrieval of [%d,%d) returned %d bytes", d.next, end, got)
	}
	d.next += got
	switch {
	case d.length >= 0 && d.next >= d.length:
		d.finish()
	case outOfRange || got < asked:
		d.finish()
		if d.length >= 0 {
			d.err = fetch.Errorf(fetch.Incomplete, "the WAIS document ended at byte %d of %d", d.next, d.length)
		}
	}
	return nil
}

// finish marks the document complete and hangs up.
func (d *docReader) finish() {
	d.done = true
	d.s.close()
}

// Read returns the document's bytes, asking for the next range when the
// last one is used up.
func (d *docReader) Read(p []byte) (int, error) {
	if d.closed.Load() {
		return 0, fetch.Errorf(fetch.Other, "read of a closed WAIS document")
	}
	for len(d.buf) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		if d.done {
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		if err := d.fill(false); err != nil {
			d.err = err
			d.s.close()
		}
	}
	n := copy(p, d.buf)
	d.buf = d.buf[n:]
	return n, nil
}

// Close closes the connection, which ends a Read waiting on it in another
// goroutine. It is safe to call more than once.
func (d *docReader) Close() error {
	d.closed.Store(true)
	d.s.close()
	return nil
}
