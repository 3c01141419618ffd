package wais

import (
	"errors"
	"fmt"
)

// The element codec of the Z39.50-1988 draft as WAIS uses it. It is not
// BER: a tag and a length are each a base-128 "compressed integer" (most
// significant group first, bit 0x80 set on every byte but the last),
// followed by that many value bytes. There is no type byte and no
// constructed bit; groups simply nest elements inside a value.

// Tags of the Z39.50 part of an APDU.
const (
	tagPDUType               = 1
	tagReferenceID           = 2
	tagProtocolVersion       = 3
	tagOptions               = 4
	tagPreferredMessageSize  = 5
	tagMaximumRecordSize     = 6
	tagImplementationName    = 9
	tagResultSetName         = 17
	tagDatabaseNames         = 18
	tagElementSetNames       = 19
	tagQueryType             = 20
	tagQuery                 = 21
	tagPresentStatus         = 27
	tagDiagnostic            = 28
	tagAttributeList         = 44
	tagTerm                  = 45
	tagOperator              = 46
	tagUserInformationLength = 99
)

// Tags of the WAIS user-information part.
const (
	tagSeedWords             = 106
	tagDateFactor            = 111
	tagMaxDocumentsRetrieved = 114
	tagDocumentID            = 116
	tagVersionNumber         = 117
	tagScore                 = 118
	tagBestMatch             = 119
	tagDocumentLength        = 120
	tagSource                = 121
	tagDate                  = 122
	tagHeadline              = 123
	tagDocumentText          = 127
	tagLines                 = 131
	tagTypeBlock             = 132
	tagType                  = 133
	tagDocumentHeaderGroup   = 150
	tagDocumentTextGroup     = 153
)

// PDU types.
const (
	pduInit           = 20
	pduInitResponse   = 21
	pduSearch         = 22
	pduSearchResponse = 23
)

// errShort and errLong report a malformed encoding.
var (
	errShort = errors.New("element runs past the end of its enclosing value")
	errLong  = errors.New("compressed integer too long")
)

// maxInt bounds a decoded compressed integer: four groups of seven bits
// hold any tag or length a message of bounded size can carry.
const maxIntBytes = 4

// appendInt appends n as a compressed integer.
func appendInt(b []byte, n uint64) []byte {
	var tmp [10]byte
	i := len(tmp) - 1
	tmp[i] = byte(n & 0x7f)
	for n >>= 7; n > 0; n >>= 7 {
		i--
		tmp[i] = byte(n&0x7f) | 0x80
	}
	return append(b, tmp[i:]...)
}

// readInt decodes a compressed integer at the start of b and returns it
// with the rest of b.
func readInt(b []byte) (uint64, []byte, error) {
	var n uint64
	for i := 0; i < len(b); i++ {
		if i == maxIntBytes {
			return 0, nil, errLong
		}
		n = n<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return n, b[i+1:], nil
		}
	}
	return 0, nil, errShort
}

// appendElem appends one element: tag, length, value.
func appendElem(b []byte, tag int, val []byte) []byte {
	b = appendInt(b, uint64(tag))
	b = appendInt(b, uint64(len(val)))
	return append(b, val...)
}

// appendStr appends a string element.
func appendStr(b []byte, tag int, s string) []byte {
	b = appendInt(b, uint64(tag))
	b = appendInt(b, uint64(len(s)))
	return append(b, s...)
}

// appendNum appends a number element: the value big-endian in as few bytes
// as it needs (at least one, at most four).
func appendNum(b []byte, tag int, n uint32) []byte {
	var v [4]byte
	v[0], v[1], v[2], v[3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	i := 0
	for i < 3 && v[i] == 0 {
		i++
	}
	return appendElem(b, tag, v[i:])
}

// number decodes the value of a number element (1 to 4 bytes, big-endian).
func number(val []byte) (uint32, error) {
	if len(val) < 1 || len(val) > 4 {
		return 0, fmt.Errorf("number of %d bytes", len(val))
	}
	var n uint32
	for _, c := range val {
		n = n<<8 | uint32(c)
	}
	return n, nil
}

// element is one decoded element; Val aliases the message buffer. A
// diagnostic record (tag 28) has Diag set and Val nil.
type element struct {
	Tag  int
	Val  []byte
	Diag *Diagnostic
}

// nextElem decodes the element at the start of b and returns it with the
// rest of b. Tag 28, the diagnostic record, has its own layout: a 2-byte
// big-endian length L, a 2-character code, L-3 bytes of text, a flag byte,
// and a 0x1d terminator that L does not count.
func nextElem(b []byte) (element, []byte, error) {
	tag, rest, err := readInt(b)
	if err != nil {
		return element{}, nil, err
	}
	if tag == tagDiagnostic {
		if len(rest) < 2 {
			return element{}, nil, errShort
		}
		l := int(rest[0])<<8 | int(rest[1])
		rest = rest[2:]
		if l < 3 || len(rest) < l+1 {
			return element{}, nil, fmt.Errorf("diagnostic record of length %d: %w", l, errShort)
		}
		if rest[l] != 0x1d {
			return element{}, nil, fmt.Errorf("diagnostic record ends with %#02x, not 0x1d", rest[l])
		}
		d := &Diagnostic{Code: string(rest[:2]), Text: string(rest[2 : l-1]), Flag: rest[l-1]}
		return element{Tag: tagDiagnostic, Diag: d}, rest[l+1:], nil
	}
	n, rest, err := readInt(rest)
	if err != nil {
		return element{}, nil, err
	}
	if n > uint64(len(rest)) {
		return element{}, nil, fmt.Errorf("element %d of length %d with %d bytes left: %w", tag, n, len(rest), errShort)
	}
	return element{Tag: int(tag), Val: rest[:n:n]}, rest[n:], nil
}

// appendDiag appends a diagnostic record in its special layout (used by
// the tests' servers).
func appendDiag(b []byte, d Diagnostic) []byte {
	l := 2 + len(d.Text) + 1
	b = appendInt(b, tagDiagnostic)
	b = append(b, byte(l>>8), byte(l))
	code := (d.Code + "  ")[:2]
	b = append(b, code...)
	b = append(b, d.Text...)
	return append(b, d.Flag, 0x1d)
}

// elements decodes every element of b, in order.
func elements(b []byte) ([]element, error) {
	var out []element
	for len(b) > 0 {
		e, rest, err := nextElem(b)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		b = rest
	}
	return out, nil
}

// Diagnostic is a diagnostic record sent by the server: a two-character
// code ("S1" for an unknown database, "SF" for a range past the end of a
// document or a bad document id), its text, and a flag byte. Errors that
// a diagnostic caused wrap it: errors.As(err, &d) recovers it.
type Diagnostic struct {
	Code string
	Text string
	Flag byte
}

// Error returns the code and the quoted text, as in `S1 "The following
// database is not available: ..."`.
func (d Diagnostic) Error() string { return d.Code + " " + fmt.Sprintf("%q", d.Text) }
