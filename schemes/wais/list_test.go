package wais

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

func TestList(t *testing.T) {
	a, b := simDocID("a", 5), simDocID("b", 6)
	s := newSim(t, "db", map[string][]byte{a: []byte("alpha"), b: []byte("alphas")})
	h := &Handler{}
	l, err := h.List(ctxT(t), &fetch.Request{URL: mustParse(t, "wais://"+s.Addr()+"/db?alpha")})
	if err != nil {
		t.Fatal(err)
	}
	es, err := fetchtest.Entries(l)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 {
		t.Fatalf("%d entries %+v, want 2", len(es), es)
	}
	for _, e := range es {
		if e.URL == nil || e.Kind != fetch.ResourceFile || e.MediaType != "text/plain" || e.Size != 5 && e.Size != 6 || e.Name == "" {
			t.Errorf("entry %+v: want a text file with its URL, size and headline", e)
			continue
		}
		_, body, err := fetchAll(t, h, e.URL)
		if err != nil || int64(len(body)) != e.Size {
			t.Errorf("fetching %s: %d bytes, %v; want %d", e.URL, len(body), err, e.Size)
		}
	}
	if _, err := h.List(ctxT(t), &fetch.Request{URL: mustParse(t, "wais://"+s.Addr()+"/db")}); !errors.Is(err, fetch.Unsupported) {
		t.Errorf("List of a description: %v, want Kind Unsupported", err)
	}
}

// TestCloseAbortsRead checks that Close called while a Read waits for a
// range the server never sends ends that Read promptly.
func TestCloseAbortsRead(t *testing.T) {
	doc := bigDoc(50_000)
	id := simDocID("big.txt", len(doc))
	s := newSim(t, "db", map[string][]byte{id: doc})
	s.stallAfter = 2 // the init and the first range
	base := mustParse(t, "wais://"+s.Addr()+"/db")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := (&Handler{ChunkSize: 1000}).Fetch(ctx, &fetch.Request{URL: mustParse(t, docURL(base, "db", "TEXT", id)), IdleTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fetchtest.CloseAbortsRead(t, res.Body)
}
