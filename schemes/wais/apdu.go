package wais

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/rfc1738/fetch/fetch"
)

// An APDU (wais.md §3) is a 2-byte big-endian length H, H bytes of Z39.50
// part (the PDU type, fixed fields, tagged elements), then the WAIS part:
// tag 99 wrapping WAIS elements, or for a retrieval, tag 21 wrapping the
// type-1 query.

// elementSetDocumentText is the ElementSetNames of a retrieval.
const elementSetDocumentText = " \x1fDocument Text"

// Attribute lists of the type-1 query operands: use, relation, position,
// structure, truncation, completeness.
const (
	attrDocID = "un re ig ig ig ig" // the DocumentID
	attrType  = "wt re ig ig ig ig" // the document type
	attrFrom  = "wb ro ig ig ig ig" // byte offset >= term
	attrTo    = "wb rl ig ig ig ig" // byte offset < term
)

// apdu joins the Z39.50 part and the WAIS part behind the 2-byte header
// length.
func apdu(z, wais []byte) []byte {
	b := make([]byte, 0, 2+len(z)+len(wais))
	b = append(b, byte(len(z)>>8), byte(len(z)))
	b = append(b, z...)
	return append(b, wais...)
}

// encodeInit returns an init request (PDU 20) offering messages of up to
// size bytes.
func encodeInit(name string, size uint32) []byte {
	z := []byte{pduInit}
	z = appendElem(z, tagProtocolVersion, []byte{0x80})
	z = appendElem(z, tagOptions, []byte{0x80})
	z = appendNum(z, tagPreferredMessageSize, size)
	z = appendNum(z, tagMaximumRecordSize, size)
	z = appendStr(z, tagImplementationName, name)
	return apdu(z, nil)
}

// searchBounds are the fixed fields of a search request after the PDU
// type: SmallSetUpperBound, LargeSetLowerBound, MediumSetPresentNumber
// (3 bytes each) and ReplaceIndicator, as waissearch sends them.
var (
	searchBounds   = []byte{0x00, 0x00, 0x1e, 0x00, 0x13, 0x88, 0x00, 0x00, 0x1e, 0x01}
	retrieveBounds = []byte{0x00, 0x00, 0x0a, 0x00, 0x00, 0x10, 0x00, 0x00, 0x0f, 0x01}
)

// encodeSearch returns a relevance search (PDU 22, query type "3") for
// the space-separated words in database db.
func encodeSearch(db, words string, maxDocs uint32) []byte {
	z := append([]byte{pduSearch}, searchBounds...)
	z = appendStr(z, tagResultSetName, "")
	z = appendStr(z, tagDatabaseNames, db)
	z = appendStr(z, tagQueryType, "3")
	var u []byte
	u = appendStr(u, tagSeedWords, words)
	u = appendNum(u, tagDateFactor, 1)
	u = appendNum(u, tagMaxDocumentsRetrieved, maxDocs)
	return apdu(z, appendElem(nil, tagUserInformationLength, u))
}

// encodeRetrieve returns a retrieval (PDU 22, query type "1") of the byte
// range [start, end) of the document docID of type wtype in database db.
func encodeRetrieve(db string, docID []byte, wtype string, start, end int64) []byte {
	z := append([]byte{pduSearch}, retrieveBounds...)
	z = appendStr(z, tagResultSetName, "FOO")
	z = appendStr(z, tagDatabaseNames, db)
	z = appendStr(z, tagQueryType, "1")
	z = appendStr(z, tagElementSetNames, elementSetDocumentText)
	var q []byte
	q = appendStr(q, tagAttributeList, attrDocID)
	q = appendElem(q, tagTerm, docID)
	q = appendStr(q, tagAttributeList, attrType)
	q = appendStr(q, tagTerm, wtype)
	q = appendStr(q, tagOperator, "a")
	q = appendStr(q, tagAttributeList, attrFrom)
	q = appendStr(q, tagTerm, strconv.FormatInt(start, 10))
	q = appendStr(q, tagOperator, "a")
	q = appendStr(q, tagAttributeList, attrTo)
	q = appendStr(q, tagTerm, strconv.FormatInt(end, 10))
	q = appendStr(q, tagOperator, "a")
	return apdu(z, appendElem(nil, tagQuery, q))
}

// response is a decoded init response or search response. Slices alias
// the message buffer.
type response struct {
	PDU     byte
	Result  byte // init response: 1 = accepted
	Status  byte // search response: SearchStatus
	Records int  // search response: NumberOfRecordsReturned
	// MessageSize is, in an init response, the smaller of the server's
	// PreferredMessageSize and MaximumRecordSize; 0 when it gives none.
	MessageSize int
	RefID       []byte
	Hits        []Hit
	Texts       []docText
	Diags       []Diagnostic
}

// docText is one DocumentTextGroup of a retrieval response.
type docText struct {
	DocID []byte
	Text  []byte
}

// errProto marks a decoding failure as a protocol error.
func errProto(format string, args ...any) error {
	return fetch.Errorf(fetch.Protocol, "malformed WAIS response: "+format, args...)
}

// decodeResponse decodes an init response (PDU 21) or a search response
// (PDU 23). Errors are of Kind Protocol.
func decodeResponse(b []byte) (*response, error) {
	if len(b) < 3 {
		return nil, errProto("APDU of %d bytes", len(b))
	}
	h := int(b[0])<<8 | int(b[1])
	if h < 1 || 2+h > len(b) {
		return nil, errProto("header length %d in an APDU of %d bytes", h, len(b))
	}
	z, user := b[2:2+h], b[2+h:]
	r := &response{PDU: z[0]}
	var rest []byte
	switch r.PDU {
	case pduInitResponse:
		if len(z) < 2 {
			return nil, errProto("init response without a result")
		}
		r.Result, rest = z[1], z[2:]
	case pduSearchResponse:
		if len(z) < 11 {
			return nil, errProto("search response header of %d bytes", len(z))
		}
		r.Status = z[1]
		r.Records = int(z[5])<<16 | int(z[6])<<8 | int(z[7])
		rest = z[11:]
	default:
		return nil, errProto("PDU type %d, want an init or search response", r.PDU)
	}
	zs, err := elements(rest)
	if err != nil {
		return nil, errProto("Z39.50 part: %v", err)
	}
	for _, e := range zs {
		switch e.Tag {
		case tagReferenceID:
			r.RefID = e.Val
		case tagPreferredMessageSize, tagMaximumRecordSize:
			if r.PDU != pduInitResponse {
				break
			}
			n, err := number(e.Val)
			if err != nil {
				return nil, errProto("message size: %v", err)
			}
			if n > 0 && (r.MessageSize == 0 || int(n) < r.MessageSize) {
				r.MessageSize = int(n)
			}
		case tagDiagnostic:
			r.Diags = append(r.Diags, *e.Diag)
		}
	}
	us, err := elements(user)
	if err != nil {
		return nil, errProto("user information: %v", err)
	}
	for _, e := range us {
		if e.Tag != tagUserInformationLength {
			if err := r.addUser(e); err != nil {
				return nil, err
			}
			continue
		}
		inner, err := elements(e.Val)
		if err != nil {
			return nil, errProto("user information: %v", err)
		}
		for _, e := range inner {
			if err := r.addUser(e); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// addUser records one element of the WAIS part.
func (r *response) addUser(e element) error {
	switch e.Tag {
	case tagDiagnostic:
		r.Diags = append(r.Diags, *e.Diag)
	case tagDocumentHeaderGroup:
		h, err := decodeHit(e.Val)
		if err != nil {
			return err
		}
		r.Hits = append(r.Hits, h)
	case tagDocumentTextGroup:
		es, err := elements(e.Val)
		if err != nil {
			return errProto("DocumentTextGroup: %v", err)
		}
		var t docText
		seen := false
		for _, e := range es {
			switch e.Tag {
			case tagDocumentID:
				t.DocID = e.Val
			case tagDocumentText:
				t.Text, seen = e.Val, true
			}
		}
		if !seen {
			return errProto("DocumentTextGroup without DocumentText")
		}
		r.Texts = append(r.Texts, t)
	}
	return nil
}

// decodeHit decodes a DocumentHeaderGroup.
func decodeHit(b []byte) (Hit, error) {
	h := Hit{Length: -1}
	es, err := elements(b)
	if err != nil {
		return h, errProto("DocumentHeaderGroup: %v", err)
	}
	num := func(e element) (int64, error) {
		n, err := number(e.Val)
		if err != nil {
			return 0, errProto("element %d: %v", e.Tag, err)
		}
		return int64(n), nil
	}
	for _, e := range es {
		var err error
		switch e.Tag {
		case tagDocumentID:
			h.DocID = string(e.Val)
		case tagScore:
			h.Score, err = num(e)
		case tagDocumentLength:
			h.Length, err = num(e)
		case tagLines:
			h.Lines, err = num(e)
		case tagTypeBlock:
			ts, terr := elements(e.Val)
			if terr != nil {
				return h, errProto("TYPE_BLOCK: %v", terr)
			}
			for _, t := range ts {
				if t.Tag == tagType {
					h.Types = append(h.Types, string(t.Val))
				}
			}
		case tagSource:
			h.Source = string(e.Val)
		case tagDate:
			h.Date = string(e.Val)
		case tagHeadline:
			h.Headline = string(e.Val)
		}
		if err != nil {
			return h, err
		}
	}
	if h.DocID == "" {
		return h, errProto("DocumentHeaderGroup without a DocumentID")
	}
	return h, nil
}

// describe summarises a response for the trace.
func (r *response) describe() string {
	if r.PDU == pduInitResponse {
		return fmt.Sprintf("init response: result %d", r.Result)
	}
	s := fmt.Sprintf("search response: status %d, %d records", r.Status, r.Records)
	if len(r.Hits) > 0 {
		s += fmt.Sprintf(", %d hits", len(r.Hits))
	}
	for _, t := range r.Texts {
		s += fmt.Sprintf(", document text of %d bytes", len(t.Text))
	}
	for _, d := range r.Diags {
		s += ", diagnostic " + d.Error()
	}
	return s
}

// errNoAnswer is returned when a search response carries nothing at all.
var errNoAnswer = errors.New("response with neither documents nor diagnostics")
