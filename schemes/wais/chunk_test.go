package wais

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestChunkFitsMessageSize checks that retrieval ranges fit in the message
// size the init agreed on (a larger one gets freeWAIS's empty answer), and
// that by default they are as large as fits.
func TestChunkFitsMessageSize(t *testing.T) {
	doc := bigDoc(250_000)
	id := simDocID("big.txt", len(doc))
	for _, tc := range []struct {
		name      string
		h         *Handler
		msgSize   int
		retrieves int // at most
	}{
		{"default", &Handler{}, 100_000, 3},
		{"too large a ChunkSize", &Handler{ChunkSize: 200_000}, 100_000, 3},
		{"small server", &Handler{}, 20_000, 14},
		{"smaller ChunkSize kept", &Handler{ChunkSize: 50_000}, 100_000, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, "db", map[string][]byte{id: doc})
			s.msgSize = tc.msgSize
			base := mustParse(t, "wais://"+s.Addr()+"/db")
			_, body, err := fetchAll(t, tc.h, mustParse(t, docURL(base, "db", "TEXT", id)))
			if err != nil {
				t.Fatalf("fetch: %v", err)
			}
			if !bytes.Equal(body, doc) {
				t.Errorf("got %d bytes, want %d", len(body), len(doc))
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			n := 0
			for _, r := range s.requests {
				if r.PDU == pduInit {
					continue
				}
				n++
				from, _ := strconv.Atoi(r.From())
				to, _ := strconv.Atoi(r.To())
				if tc.h.ChunkSize > 0 && to-from > tc.h.ChunkSize {
					t.Errorf("range [%d,%d) is larger than ChunkSize %d", from, to, tc.h.ChunkSize)
				}
			}
			if n > tc.retrieves {
				t.Errorf("%d retrievals, want at most %d", n, tc.retrieves)
			}
		})
	}
}

// TestHitLineEscapesControls checks that a headline's terminal controls,
// C1 and bidirectional overrides included, do not reach the hit line.
func TestHitLineEscapesControls(t *testing.T) {
	h := Hit{Headline: "a\x1b]0;PWNED\x07b\u009b2Jc\u202ed\x9be\tf caf\xe9", URL: "wais://h/db/TEXT/1/x"}
	line := string(h.AppendLine(nil))
	head, _, _ := strings.Cut(line, "\twais:")
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e", "\x9b"} {
		if strings.Contains(head, bad) {
			t.Errorf("hit line %q holds %q", line, bad)
		}
	}
	if !strings.Contains(head, "caf\xe9") {
		t.Errorf("hit line %q lost the Latin-1 headline byte", line)
	}
}
