package gopher

import (
	"errors"
	"io"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// spliceLowat is the low mark (SO_RCVLOWAT) the socket is given while it
// is spliced: this process is woken once that much has come rather than
// for each of the server's writes. Gophernicus and pygopherd write 4 KiB
// at a time, and on a machine with few cores each wakeup of the client
// takes the core from the server. 1 MiB is what the splice moves through
// its pipe at a time.
const spliceLowat = 1 << 20

// spliceTo hands the rest of the body to w's ReadFrom with the
// connection's socket itself as the reader (wire.Splicer), so that an
// *os.File moves the bytes with splice(2) on Linux, without a copy
// through this process. It does so for an item read until the server
// closes and for one whose size a Gopher+ header gave; text and menus,
// whose ends are looked for in the bytes, are read as before. It reports
// false when it cannot (TLS, a connection that is not TCP, a w that is
// not an io.ReaderFrom, a body of another kind), and WriteTo then copies.
// The rules are Read's: a server closing before an announced size is Kind
// Incomplete, a reset connection too, a stall Kind Timeout, and the
// session's context ends the copy with its cause.
func (b *body) spliceTo(w io.Writer) (int64, bool, error) {
	s := b.s
	var sized *sizedReader
	switch r := b.r.(type) {
	case rawReader:
		if r.r != io.Reader(s.br) {
			return 0, false, nil
		}
	case *sizedReader:
		if r.r != io.Reader(s.br) {
			return 0, false, nil
		}
		sized = r
	default:
		return 0, false, nil
	}
	fc, ok := s.conn.(*wire.Conn)
	if !ok {
		return 0, false, nil
	}
	tc, ok := wire.TCPConn(fc.Conn)
	if !ok {
		return 0, false, nil
	}
	left := int64(-1)
	if sized != nil {
		left = sized.n
	}
	sp := wire.Splicer{IdleTimeout: s.idle, LowMark: spliceLowat}
	n, ok, err := sp.Splice(s.ctx, w, s.br, tc, left)
	if sized != nil {
		sized.n -= n
		if errors.Is(err, fetch.Incomplete) && errors.Is(err, io.ErrUnexpectedEOF) {
			// As Read says it, of the whole item.
			err = fetch.Errorf(fetch.Incomplete, "the server closed after %d of %d bytes", sized.size-sized.n, sized.size)
		}
	}
	return n, ok, err
}
