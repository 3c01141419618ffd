package wais

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

func BenchmarkDecodeSearchResponse(b *testing.B) {
	ms, _ := loadTranscript(b, "wais-probe-search-two-words")
	apdu := ms[len(ms)-1].data[headerLen:]
	b.SetBytes(int64(len(apdu)))
	for b.Loop() {
		r, err := decodeResponse(apdu)
		if err != nil || len(r.Hits) != 3 {
			b.Fatal(r, err)
		}
	}
}

func BenchmarkRetrieve(b *testing.B) {
	doc := bytes.Repeat([]byte("wide area information servers\n"), 1<<20/30)
	id := simDocID("big", len(doc))
	s := newSim(b, "db", map[string][]byte{id: doc})
	base, err := url.ParseLenient("wais://" + s.Addr() + "/db")
	if err != nil {
		b.Fatal(err)
	}
	u, err := url.ParseLenient(docURL(base, "db", "TEXT", id))
	if err != nil {
		b.Fatal(err)
	}
	for _, chunk := range []int{4096, 10000, 30000, 65536} {
		b.Run("chunk="+strconv.Itoa(chunk), func(b *testing.B) {
			h := &Handler{ChunkSize: chunk}
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				res, err := h.Fetch(context.Background(), &fetch.Request{URL: u})
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if err != nil || n != int64(len(doc)) {
					b.Fatal(n, err)
				}
			}
		})
	}
}
