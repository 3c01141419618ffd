package wais

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// TestLive runs against a real WAIS server when WAIS_ADDR (host:port) is
// set, serving a database WAIS_DB (default "demo") built from the three
// documents in testdata/fixtures/docs, as in shared/protocols/wais.md. It
// is skipped otherwise.
func TestLive(t *testing.T) {
	addr := os.Getenv("WAIS_ADDR")
	if addr == "" {
		t.Skip("WAIS_ADDR is not set: no live WAIS server to test against")
	}
	db := os.Getenv("WAIS_DB")
	if db == "" {
		db = "demo"
	}
	var trace strings.Builder
	h := &Handler{}
	req := &fetch.Request{URL: mustParse(t, "wais://"+addr+"/"+db+"?gophers"), Trace: fetch.NewTrace(&trace)}
	hits, err := h.Search(ctxT(t), req)
	if err != nil {
		t.Fatalf("search: %v\n%s", err, trace.String())
	}
	if len(hits) == 0 {
		t.Fatalf("no hits for gophers\n%s", trace.String())
	}
	for _, hit := range hits {
		name, _, _ := strings.Cut(hit.Headline, " ")
		want, err := os.ReadFile("testdata/fixtures/docs/" + name)
		if err != nil {
			t.Logf("hit %q: no fixture to compare with", hit.Headline)
			continue
		}
		for _, chunk := range []int{0, 7, 50} {
			res, err := (&Handler{ChunkSize: chunk}).Fetch(ctxT(t), &fetch.Request{URL: mustParse(t, hit.URL)})
			if err != nil {
				t.Fatalf("retrieve %s: %v", hit.URL, err)
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("retrieve %s in chunks of %d: %d bytes, %v; want %d bytes", name, chunk, len(got), err, len(want))
			}
		}
	}
	if _, err := h.Search(ctxT(t), &fetch.Request{URL: mustParse(t, "wais://"+addr+"/nosuchdb-fetch-test?x")}); !errors.Is(err, fetch.NotFound) {
		t.Errorf("unknown database: %v, want NotFound", err)
	}
	res, err := h.Fetch(ctxT(t), &fetch.Request{URL: mustParse(t, "wais://"+addr+"/"+db)})
	if err != nil {
		t.Fatalf("description: %v", err)
	}
	desc, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || len(desc) == 0 {
		t.Errorf("description: %d bytes, %v", len(desc), err)
	}
}
