package prospero

import (
	"encoding/binary"
	"fmt"
)

// ARDP version 0 header flags (octet 11).
const (
	flagAckPlease  = 0x80 // the sender wants an ACK now
	flagSeqControl = 0x40 // a sequenced control packet
)

// maxHeader is the longest ARDP v0 header: its length lives in 6 bits.
const maxHeader = 63

// header is an ARDP version 0 packet header. The header is variable in
// length and may stop after any field; a field past the end takes its
// default (see parseHeader).
type header struct {
	Len     int    // octets in the header, octet 0 included
	CID     uint16 // connection id; 0 when absent
	Seq     uint16 // 1-based sequence number; 0 marks an unsequenced control packet
	Total   uint16 // packets in the message; 0 = not known yet
	Rcvd    uint16 // the sender's cumulative ACK of the peer's packets
	HasRcvd bool
	Wait    uint16 // seconds the server expects to need
	HasWait bool
	Flags   byte
	Option  byte
}

// parseHeader decodes the ARDP v0 header at the start of p and returns it
// with the data that follows. Absent fields take the defaults of ARDP v0: a
// missing sequence number is 1 and then the message is one packet (total 1);
// a missing total is 0 (unknown); received-through, wait, flags and option
// are absent. A header whose top two bits are not 0 (another ARDP version)
// or whose length exceeds the packet is an error.
func parseHeader(p []byte) (header, []byte, error) {
	var h header
	if len(p) == 0 {
		return h, nil, fmt.Errorf("empty ARDP packet")
	}
	if v := p[0] >> 6; v != 0 {
		return h, nil, fmt.Errorf("ARDP version %d packet (octet 0 is %#02x), want version 0", v, p[0])
	}
	h.Len = int(p[0] & 0x3f)
	if h.Len < 1 || h.Len > len(p) {
		return h, nil, fmt.Errorf("ARDP header length %d in a %d-octet packet", h.Len, len(p))
	}
	b := p[:h.Len]
	field := func(off int) (uint16, bool) {
		if len(b) >= off+2 {
			return binary.BigEndian.Uint16(b[off:]), true
		}
		return 0, false
	}
	h.CID, _ = field(1)
	seq, hasSeq := field(3)
	switch {
	case hasSeq:
		h.Seq = seq
		h.Total, _ = field(5)
	default:
		h.Seq, h.Total = 1, 1
	}
	h.Rcvd, h.HasRcvd = field(7)
	h.Wait, h.HasWait = field(9)
	if len(b) > 11 {
		h.Flags = b[11]
	}
	if len(b) > 12 {
		h.Option = b[12]
	}
	return h, p[h.Len:], nil
}

// appendHeader appends h encoded at the shortest length that carries its
// fields, never shorter than h.Len, and returns the extended slice. The
// client's requests and ACKs use the 9-octet form (cid, seq, total,
// received-through), as the reference clients do.
func appendHeader(dst []byte, h header) []byte {
	n := max(h.Len, 1)
	switch {
	case h.Option != 0:
		n = max(n, 13)
	case h.Flags != 0:
		n = max(n, 12)
	case h.HasWait:
		n = max(n, 11)
	case h.HasRcvd:
		n = max(n, 9)
	}
	n = min(n, maxHeader)
	var b [maxHeader]byte
	b[0] = byte(n)
	binary.BigEndian.PutUint16(b[1:], h.CID)
	binary.BigEndian.PutUint16(b[3:], h.Seq)
	binary.BigEndian.PutUint16(b[5:], h.Total)
	binary.BigEndian.PutUint16(b[7:], h.Rcvd)
	binary.BigEndian.PutUint16(b[9:], h.Wait)
	b[11] = h.Flags
	b[12] = h.Option
	return append(dst, b[:n]...)
}

// requestHeader is the header of a one-packet request: seq 1 of 1, nothing
// of the server's received yet.
func requestHeader(cid uint16) header {
	return header{Len: 9, CID: cid, Seq: 1, Total: 1, HasRcvd: true}
}

// ackHeader is the header of an unsequenced ACK of the server's packets 1
// through rcvd.
func ackHeader(cid, rcvd uint16) header {
	return header{Len: 9, CID: cid, Rcvd: rcvd, HasRcvd: true}
}

// swap16 returns v with its two octets exchanged: some little-endian builds
// of dirsrv write the cid that way into re-sent packets.
func swap16(v uint16) uint16 { return v<<8 | v>>8 }
