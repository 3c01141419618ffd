package prospero

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// transcript is one recording of testdata/prospero-*.json: the datagrams
// exchanged with the real Prospero Alpha.5.2a dirsrv (see its "format").
type transcript struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Exchanges   []struct {
		CID          int    `json:"cid"`
		RequestText  string `json:"request_text"`
		ResponseText string `json:"response_text"`
	} `json:"exchanges"`
	Retrieved *struct {
		Fixture string `json:"fixture"`
		Bytes   int    `json:"bytes"`
	} `json:"retrieved"`
	Datagrams []datagram `json:"datagrams"`
}

// datagram is one recorded UDP datagram.
type datagram struct {
	Dir  string `json:"dir"` // "c2s" or "s2c"
	Hex  string `json:"hex"`
	Ardp struct {
		Seq  int  `json:"seq"`
		Rcvd *int `json:"rcvd_through"`
	} `json:"ardp"`
	raw []byte
}

func loadTranscript(t testing.TB, name string) *transcript {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "prospero-"+name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr transcript
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("decoding %s: %v", name, err)
	}
	for i := range tr.Datagrams {
		d := &tr.Datagrams[i]
		if d.raw, err = hex.DecodeString(d.Hex); err != nil {
			t.Fatalf("%s: datagram %d: %v", name, i, err)
		}
	}
	return &tr
}

// fixture returns a served file's bytes; path is as in a transcript's
// "retrieved" ("fixtures/prospero/pub/big.txt") or relative to the root.
func fixture(t testing.TB, path string) []byte {
	t.Helper()
	path = strings.TrimPrefix(path, "fixtures/prospero/")
	b, err := os.ReadFile(filepath.Join("testdata", "fixtures", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replyPayload reassembles the first reply of a transcript, by sequence
// number, from its server datagrams.
func replyPayload(t testing.TB, tr *transcript) []byte {
	t.Helper()
	parts := map[uint16][]byte{}
	var total uint16
	for _, d := range tr.Datagrams {
		if d.Dir != "s2c" {
			continue
		}
		h, data, err := parseHeader(d.raw)
		if err != nil {
			t.Fatalf("%s: %v", tr.Name, err)
		}
		if h.Seq == 0 {
			continue
		}
		if _, ok := parts[h.Seq]; !ok {
			parts[h.Seq] = data
		}
		if h.Total != 0 {
			total = h.Total
		}
		if total != 0 && len(parts) == int(total) {
			break
		}
	}
	var out []byte
	for i := uint16(1); i <= total; i++ {
		p, ok := parts[i]
		if !ok {
			t.Fatalf("%s: packet %d missing", tr.Name, i)
		}
		out = append(out, p...)
	}
	return out
}

// commands returns a request payload's command lines, normalized (tokens
// unquoted and joined by one space), without the preamble (VERSION,
// AUTHENTICATE), which the recordings' clients each wrote their own way.
func commands(t testing.TB, payload string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(payload, "\n"), "\n") {
		toks, err := tokenize(line)
		if err != nil {
			t.Errorf("request line %q: %v", line, err)
			continue
		}
		if len(toks) == 0 || toks[0] == "VERSION" || toks[0] == "AUTHENTICATE" {
			continue
		}
		for i, tok := range toks {
			toks[i] = quote(tok)
		}
		out = append(out, strings.Join(toks, " "))
	}
	return out
}
