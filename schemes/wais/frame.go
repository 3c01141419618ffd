package wais

import (
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/rfc1738/fetch/fetch"
)

// The 25-byte WAIS message header (wais.md §2), in ASCII: msg_len as ten
// zero-padded decimal digits, msg_type 'z', hdr_vers '2', the server name
// "wais" padded to ten, compression ' ', encoding ' ', checksum '0'.
const (
	headerLen  = 25
	headerTail = "z2wais        0"
)

// appendHeader appends the header of a message whose APDU is n bytes.
func appendHeader(b []byte, n int) []byte {
	b = fmt.Appendf(b, "%010d", n)
	return append(b, headerTail...)
}

// frame returns apdu preceded by its header, ready for one Write.
func frame(apdu []byte) []byte {
	b := make([]byte, 0, headerLen+len(apdu))
	return append(appendHeader(b, len(apdu)), apdu...)
}

// readMessage reads one message and returns its APDU. A message longer
// than limit is refused before anything is allocated for it. A stream that
// ends before the message does is an error of Kind Incomplete; a header
// that is not a WAIS header is Kind Protocol.
func readMessage(r io.Reader, limit int) ([]byte, error) {
	var h [headerLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, ioError(err, "reading a message header")
	}
	n := 0
	for _, c := range h[:10] {
		if c < '0' || c > '9' {
			return nil, fetch.Errorf(fetch.Protocol, "not a WAIS message header: %q", h[:])
		}
		n = n*10 + int(c-'0')
	}
	if h[10] != 'z' {
		return nil, fetch.Errorf(fetch.Protocol, "WAIS message of type %q, want 'z' (a Z39.50 APDU)", h[10])
	}
	if n > limit {
		return nil, fetch.Errorf(fetch.Protocol, "WAIS message of %d bytes exceeds the limit of %d", n, limit)
	}
	apdu := make([]byte, n)
	if _, err := io.ReadFull(r, apdu); err != nil {
		return nil, ioError(err, "reading a message")
	}
	return apdu, nil
}

// ioError classifies a read or write failure: the end of the stream in the
// middle of an exchange is Kind Incomplete, a deadline Kind Timeout, and a
// context's end keeps its cause reachable.
func ioError(err error, doing string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fetch.Errorf(fetch.Incomplete, "%s: the server closed the connection", doing)
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return fetch.Errorf(fetch.Incomplete, "%s: %w", doing, err)
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	return fetch.Wrap(fetch.KindOf(err), fmt.Errorf("%s: %w", doing, err))
}
