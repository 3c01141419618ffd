package prospero

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// TestParseHeader decodes the header shapes of prospero.md §1.2, as seen
// on the wire.
func TestParseHeader(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want header
		data string
	}{
		{"request", "09aa3d000100010000" + "5354", header{Len: 9, CID: 0xaa3d, Seq: 1, Total: 1, HasRcvd: true}, "ST"},
		{"single-packet reply", "03aa3d" + "4e4f", header{Len: 3, CID: 0xaa3d, Seq: 1, Total: 1}, "NO"},
		{"multi 1..15, total unknown", "07aa3d00020000" + "78", header{Len: 7, CID: 0xaa3d, Seq: 2}, "x"},
		{"end of window, please-ACK", "0caa3d0010000000010000" + "80" + "78", header{Len: 12, CID: 0xaa3d, Seq: 16, Rcvd: 1, HasRcvd: true, HasWait: true, Flags: flagAckPlease}, "x"},
		{"ACK", "09aa3d000000000010", header{Len: 9, CID: 0xaa3d, Rcvd: 16, HasRcvd: true}, ""},
		{"after the ACK", "09aa3d0011003b0001" + "77", header{Len: 9, CID: 0xaa3d, Seq: 17, Total: 59, Rcvd: 1, HasRcvd: true}, "w"},
		{"seq without total", "05aa3d0004", header{Len: 5, CID: 0xaa3d, Seq: 4}, ""},
		{"only octet 0", "01" + "41", header{Len: 1, Seq: 1, Total: 1}, "A"},
		{"wait notice", "0baa3d0000000000010005", header{Len: 11, CID: 0xaa3d, Rcvd: 1, HasRcvd: true, Wait: 5, HasWait: true}, ""},
		{"option", "0d00010001000100000000" + "00" + "01", header{Len: 13, CID: 1, Seq: 1, Total: 1, HasRcvd: true, HasWait: true, Option: 1}, ""},
	}
	for _, tt := range tests {
		p, _ := hex.DecodeString(tt.hex)
		h, data, err := parseHeader(p)
		if err != nil || h != tt.want || string(data) != tt.data {
			t.Errorf("%s: parseHeader(%s) = %+v, %q, %v; want %+v, %q", tt.name, tt.hex, h, data, err, tt.want, tt.data)
		}
		// Round trip: the encoding of what was decoded is the header read.
		if err == nil {
			if enc := appendHeader(nil, h); !bytes.Equal(enc, p[:h.Len]) {
				t.Errorf("%s: appendHeader(%+v) = %x, want %x", tt.name, h, enc, p[:h.Len])
			}
		}
	}
	for _, bad := range []string{"", "00", "81aa3d", "41aa3d", "0aaa3d0001"} {
		p, _ := hex.DecodeString(bad)
		if h, _, err := parseHeader(p); err == nil {
			t.Errorf("parseHeader(%s) = %+v, want an error", bad, h)
		}
	}
}

func TestClientHeaders(t *testing.T) {
	if got := hex.EncodeToString(appendHeader(nil, requestHeader(0xaa3d))); got != "09aa3d000100010000" {
		t.Errorf("request header %s", got)
	}
	if got := hex.EncodeToString(appendHeader(nil, ackHeader(0xaa3d, 0x3b))); got != "09aa3d00000000003b" {
		t.Errorf("ACK header %s", got)
	}
}

// FuzzParseHeader: any packet decodes or fails cleanly, and what decodes
// re-encodes to the header octets it came from.
func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"09aa3d000100010000", "03aa3d4e4f", "0caa3d001000000001000080", "01", "3f"} {
		p, _ := hex.DecodeString(s)
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		h, data, err := parseHeader(p)
		if err != nil {
			return
		}
		if h.Len+len(data) != len(p) {
			t.Fatalf("header %d + data %d != packet %d", h.Len, len(data), len(p))
		}
		switch h.Len {
		case 1, 3, 5, 7, 9, 11, 12, 13: // headers that end on a field boundary
			if enc := appendHeader(nil, h); !bytes.Equal(enc, p[:h.Len]) {
				t.Fatalf("appendHeader(%+v) = %x, want %x", h, enc, p[:h.Len])
			}
		}
	})
}
