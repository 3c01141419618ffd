package wais

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// Compressed integers, wais.md §3.
func TestCompressedInt(t *testing.T) {
	for _, tc := range []struct {
		n   uint64
		hex string
	}{
		{0, "00"}, {1, "01"}, {99, "63"}, {127, "7f"}, {128, "8100"}, {131, "8103"},
		{150, "8116"}, {153, "8119"}, {290, "8222"}, {16383, "ff7f"}, {16384, "818000"},
		{1<<28 - 1, "ffffff7f"},
	} {
		got := hex.EncodeToString(appendInt(nil, tc.n))
		if got != tc.hex {
			t.Errorf("appendInt(%d) = %s, want %s", tc.n, got, tc.hex)
		}
		b, _ := hex.DecodeString(tc.hex + "ee")
		n, rest, err := readInt(b)
		if err != nil || n != tc.n || !bytes.Equal(rest, []byte{0xee}) {
			t.Errorf("readInt(%s) = %d, %x, %v; want %d", tc.hex, n, rest, err, tc.n)
		}
	}
	for _, bad := range []string{"", "81", "8181", "8181818101"} {
		b, _ := hex.DecodeString(bad)
		if _, _, err := readInt(b); err == nil {
			t.Errorf("readInt(%s): no error", bad)
		}
	}
}

// Number elements, wais.md §3: MaximumRecordSize 100000, Score 145.
func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		tag int
		n   uint32
		hex string
	}{
		{tagMaximumRecordSize, 100000, "06030186a0"}, {tagScore, 145, "760191"},
		{tagBestMatch, 0, "770100"}, {tagScore, 1000, "760203e8"}, {tagScore, 1<<32 - 1, "7604ffffffff"},
	} {
		b := appendNum(nil, tc.tag, tc.n)
		if got := hex.EncodeToString(b); got != tc.hex {
			t.Errorf("appendNum(%d, %d) = %s, want %s", tc.tag, tc.n, got, tc.hex)
		}
		e, rest, err := nextElem(b)
		if err != nil || len(rest) != 0 || e.Tag != tc.tag {
			t.Fatalf("nextElem(%s) = %+v, %v", tc.hex, e, err)
		}
		if n, err := number(e.Val); err != nil || n != tc.n {
			t.Errorf("number(%x) = %d, %v; want %d", e.Val, n, err, tc.n)
		}
	}
}

// The diagnostic record breaks the element rule, wais.md §3.
func TestDiagnostic(t *testing.T) {
	b, _ := hex.DecodeString("1c0017534652657175657374206f7574206f662072616e6765011d" + "7b00")
	e, rest, err := nextElem(b)
	if err != nil {
		t.Fatal(err)
	}
	want := Diagnostic{Code: "SF", Text: "Request out of range", Flag: 1}
	if e.Tag != tagDiagnostic || e.Diag == nil || *e.Diag != want {
		t.Errorf("nextElem = %+v, want %+v", e, want)
	}
	if hex.EncodeToString(rest) != "7b00" {
		t.Errorf("rest %x", rest)
	}
	if got := appendDiag(nil, want); !bytes.Equal(got, b[:len(b)-2]) {
		t.Errorf("appendDiag = %x", got)
	}
	for _, bad := range []string{"1c", "1c00", "1c0003", "1c000353460100", "1c0003534601ff"} {
		b, _ := hex.DecodeString(bad)
		if _, _, err := nextElem(b); err == nil {
			t.Errorf("nextElem(%s): no error", bad)
		}
	}
}

// Element round trips, with nesting.
func TestElementRoundTrip(t *testing.T) {
	inner := appendStr(appendNum(nil, tagScore, 7), tagHeadline, string(bytes.Repeat([]byte("h"), 300)))
	var b []byte
	b = appendElem(b, tagDocumentHeaderGroup, inner)
	b = appendDiag(b, Diagnostic{Code: "S1", Text: "nope"})
	b = appendStr(b, tagSeedWords, "")
	es, err := elements(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 || es[0].Tag != tagDocumentHeaderGroup || !bytes.Equal(es[0].Val, inner) ||
		es[1].Diag == nil || es[1].Diag.Code != "S1" || es[2].Tag != tagSeedWords || len(es[2].Val) != 0 {
		t.Fatalf("elements = %+v", es)
	}
	if _, err := elements(b[:len(b)-1]); err == nil {
		t.Error("truncated: no error")
	}
}

// The requests we send are byte-exact with the recorded ones where the
// recording's choices are ours too.
func TestRequestBytes(t *testing.T) {
	ws, _ := loadTranscript(t, "wais-waissearch-init-search-retrieve")
	if got := frame(encodeSearch("demo", "gophers", 40)); !bytes.Equal(got, ws[2].data) {
		t.Errorf("search\n got %x\nwant %x", got, ws[2].data)
	}
	ch, _ := loadTranscript(t, "wais-probe-retrieve-chunked")
	id := docIDOf(t, ch[0].data)
	if got := frame(encodeRetrieve("demo", []byte(id), "TEXT", 0, 50)); !bytes.Equal(got, ch[0].data) {
		t.Errorf("retrieve\n got %x\nwant %x", got, ch[0].data)
	}
	pr, _ := loadTranscript(t, "wais-probe-init-search-retrieve")
	if got := frame(encodeInit("go-urlfetch-probe", 100000)); !bytes.Equal(got, pr[0].data) {
		t.Errorf("init\n got %x\nwant %x", got, pr[0].data)
	}
}

// Every recorded server message decodes.
func TestDecodeRecorded(t *testing.T) {
	for _, name := range transcriptNames {
		ms, _ := loadTranscript(t, name)
		for i, m := range ms {
			if m.c2s {
				continue
			}
			b, err := readMessage(bytes.NewReader(m.data), 1<<20)
			if err != nil {
				t.Fatalf("%s #%d: %v", name, i, err)
			}
			r, err := decodeResponse(b)
			if err != nil {
				t.Fatalf("%s #%d: %v", name, i, err)
			}
			if r.PDU == pduSearchResponse && r.Records != len(r.Hits)+len(r.Texts)+len(r.Diags) {
				t.Errorf("%s #%d: %d records, decoded %d hits %d texts %d diagnostics", name, i, r.Records, len(r.Hits), len(r.Texts), len(r.Diags))
			}
		}
	}
}

var transcriptNames = []string{
	"wais-probe-init-search-retrieve", "wais-probe-retrieve-bad-docid", "wais-probe-retrieve-chunked",
	"wais-probe-retrieve-exact-multiple", "wais-probe-retrieve-missing-document", "wais-probe-retrieve-past-end",
	"wais-probe-retrieve-whole-10000", "wais-probe-search-empty-database-info", "wais-probe-search-nohits",
	"wais-probe-search-two-words", "wais-probe-unknown-database", "wais-waissearch-init-search-retrieve",
}

func TestFrame(t *testing.T) {
	got := string(frame(make([]byte, 41))[:headerLen])
	if got != "0000000041z2wais        0" {
		t.Errorf("header %q", got)
	}
	for _, bad := range []string{
		"00000000x1z2wais        0", // not digits
		"0000000001a2wais        0", // not an APDU
		"9999999999z2wais        0", // over the limit
		"0000000005z2wais        0ab",
		"0000",
	} {
		if _, err := readMessage(bytes.NewReader([]byte(bad)), 1<<20); err == nil {
			t.Errorf("readMessage(%q): no error", bad)
		}
	}
}

func FuzzDecodeResponse(f *testing.F) {
	for _, name := range transcriptNames {
		ms, _ := loadTranscript(f, name)
		for _, m := range ms {
			f.Add(m.data[headerLen:])
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeResponse(b)
		if err == nil {
			_ = r.describe()
			for _, h := range r.Hits {
				_ = h.AppendLine(nil)
			}
		}
		decodeRequest(b)
	})
}

func FuzzElements(f *testing.F) {
	f.Add([]byte{0x63, 0x06, 0x64, 0x01, 0x00, 0x65, 0x01, 0x00})
	f.Add([]byte{0x1c, 0x00, 0x03, 'S', 'F', 0x01, 0x1d})
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := elements(b)
		if err != nil {
			return
		}
		// Re-encoding gives back the input, except for non-minimal
		// compressed integers, so compare decodings instead.
		var out []byte
		for _, e := range es {
			if e.Diag != nil {
				out = appendDiag(out, *e.Diag)
			} else {
				out = appendElem(out, e.Tag, e.Val)
			}
		}
		es2, err := elements(out)
		if err != nil || len(es2) != len(es) {
			t.Fatalf("re-encoded %x: %v, %d elements, want %d", out, err, len(es2), len(es))
		}
		for i := range es {
			if es[i].Tag != es2[i].Tag || !bytes.Equal(es[i].Val, es2[i].Val) {
				t.Fatalf("element %d: %+v != %+v", i, es[i], es2[i])
			}
		}
	})
}

func FuzzLibwww(f *testing.F) {
	f.Add("1=vm%3A21000;2=/srv/wais/index/demo;3=0%20125%20/srv/wais/docs/gamma.txt;7=%00;")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := decodeLibwww(s)
		if err != nil {
			return
		}
		enc, ok := encodeLibwww(id)
		if !ok {
			return
		}
		id2, err := decodeLibwww(enc)
		if err != nil || id2 != id {
			t.Fatalf("decodeLibwww(%q) = %q, %v; want %q", enc, id2, err, id)
		}
	})
}
