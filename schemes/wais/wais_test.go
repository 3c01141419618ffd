package wais

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

func bigDoc(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = "gophers wide area information servers\n"[i%38]
	}
	return b
}

func TestConformance(t *testing.T) {
	doc := bigDoc(200_000)
	id := simDocID("big.txt", len(doc))
	s := newSim(t, "db", map[string][]byte{id: doc})
	base := mustParse(t, "wais://"+s.Addr()+"/db")
	stalled := newSim(t, "db", map[string][]byte{id: doc})
	stalled.stallAfter = 2 // the init and the first range
	fetchtest.Run(t, &Handler{}, fetchtest.Cases{
		Existing: docURL(base, "db", "TEXT", id),
		Want:     doc,
		Missing:  docURL(base, "db", "TEXT", simDocID("nosuch.txt", 1)),
		Stalled:  docURL(mustParse(t, "wais://"+stalled.Addr()+"/db"), "db", "TEXT", id),
	})
	fetchtest.Run(t, &Handler{ChunkSize: 4096, NoInit: true}, fetchtest.Cases{
		Existing: docURL(base, "db", "TEXT", id),
		Want:     doc,
		Missing:  "wais://" + s.Addr() + "/nosuchdb?gophers",
	})
}

func TestDocumentSizes(t *testing.T) {
	for _, n := range []int{0, 1, 99, 100, 101, 1000, 12345} {
		doc := bigDoc(n)
		id := simDocID("d", n)
		s := newSim(t, "db", map[string][]byte{id: doc})
		base := mustParse(t, "wais://"+s.Addr()+"/db")
		res, body, err := fetchAll(t, &Handler{ChunkSize: 100}, mustParse(t, docURL(base, "db", "TEXT", id)))
		if err != nil {
			t.Fatalf("size %d: %v", n, err)
		}
		if !bytes.Equal(body, doc) {
			t.Errorf("size %d: got %d bytes", n, len(body))
		}
		if res.Size != -1 && res.Size != int64(n) {
			t.Errorf("size %d: Size %d", n, res.Size)
		}
		want := n/100 + 1
		if got := len(s.requests) - 1; got != want {
			t.Errorf("size %d: %d retrievals, want %d", n, got, want)
		}
	}
}

func TestSearchSim(t *testing.T) {
	a, b := simDocID("a", 5), simDocID("b", 5)
	s := newSim(t, "db", map[string][]byte{a: []byte("alpha"), b: []byte("betas")})
	h := &Handler{}
	hits, err := h.Search(ctxT(t), &fetch.Request{URL: mustParse(t, "wais://"+s.Addr()+"/db?ALPHA")})
	if err != nil || len(hits) != 1 || hits[0].DocID != a {
		t.Fatalf("Search = %+v, %v", hits, err)
	}
	_, body, err := fetchAll(t, h, mustParse(t, hits[0].URL))
	if err != nil || string(body) != "alpha" {
		t.Errorf("fetch of the hit: %q, %v", body, err)
	}
	hits, err = h.Search(ctxT(t), &fetch.Request{URL: mustParse(t, "wais://"+s.Addr()+"/db?zzz")})
	if err != nil || len(hits) != 0 {
		t.Errorf("no-hits search = %+v, %v", hits, err)
	}
	if s.requests[len(s.requests)-1].Seed != "zzz" {
		t.Errorf("seed words %q", s.requests[len(s.requests)-1].Seed)
	}
}

func TestResume(t *testing.T) {
	doc := bigDoc(1000)
	id := simDocID("d", len(doc))
	s := newSim(t, "db", map[string][]byte{id: doc})
	u := mustParse(t, docURL(mustParse(t, "wais://"+s.Addr()+"/db"), "db", "TEXT", id))
	for _, off := range []int64{1, 300, 999, 1000} {
		res, err := (&Handler{ChunkSize: 128}).Fetch(ctxT(t), &fetch.Request{URL: u, Offset: off})
		if err != nil {
			t.Fatalf("offset %d: %v", off, err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || !bytes.Equal(body, doc[off:]) || res.Offset != off {
			t.Errorf("offset %d: %d bytes, Offset %d, %v", off, len(body), res.Offset, err)
		}
	}
}

func TestTruncated(t *testing.T) {
	doc := bigDoc(1000)
	id := simDocID("d", len(doc))
	for _, half := range []bool{false, true} {
		s := newSim(t, "db", map[string][]byte{id: doc})
		s.cutAfter = 3 // init, first range, then cut
		s.halfMsg = half
		u := mustParse(t, docURL(mustParse(t, "wais://"+s.Addr()+"/db"), "db", "TEXT", id))
		res, err := (&Handler{ChunkSize: 100}).Fetch(ctxT(t), &fetch.Request{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if len(body) != 100 || !errors.Is(err, fetch.Incomplete) {
			t.Errorf("half %v: %d bytes, %v (kind %v); want 100 bytes and Incomplete", half, len(body), err, fetch.KindOf(err))
		}
	}
	// A known length (libwww's layout) that the document does not reach.
	s := newSim(t, "db", map[string][]byte{id: doc})
	lw, _ := encodeLibwww(id)
	res, err := (&Handler{ChunkSize: 300}).Fetch(ctxT(t), &fetch.Request{URL: rawURL(t, s.Addr(), "db/TEXT/1200/"+lw)})
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Equal(body, doc) || !errors.Is(err, fetch.Incomplete) || res.Size != 1200 {
		t.Errorf("known length: %d bytes, Size %d, %v; want %d bytes then Incomplete", len(body), res.Size, err, len(doc))
	}
}

func TestSilentServer(t *testing.T) {
	s := newSim(t, "db", nil)
	s.silent = true
	u := mustParse(t, "wais://"+s.Addr()+"/db?x")
	// The idle timeout.
	_, err := (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: u, IdleTimeout: 50 * time.Millisecond})
	if !errors.Is(err, fetch.Timeout) {
		t.Errorf("idle: %v (kind %v), want Timeout", err, fetch.KindOf(err))
	}
	// The context's deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = (&Handler{NoInit: true}).Fetch(ctx, &fetch.Request{URL: u})
	if !errors.Is(err, fetch.Timeout) {
		t.Errorf("deadline: %v (kind %v), want Timeout", err, fetch.KindOf(err))
	}
}

func TestNotWAIS(t *testing.T) {
	for _, reply := range []string{"HTTP/1.0 400 Bad Request\r\n\r\n", "0000000003z2wais        0\x00\x05\x17"} {
		ln := listenOnce(t, reply)
		_, err := (&Handler{}).Fetch(ctxT(t), &fetch.Request{URL: mustParse(t, "wais://"+ln+"/db?x")})
		if !errors.Is(err, fetch.Protocol) {
			t.Errorf("reply %q: %v (kind %v), want Protocol", reply, err, fetch.KindOf(err))
		}
	}
}

// listenOnce answers the first message of one connection with reply.
func listenOnce(t *testing.T, reply string) string {
	s := newSim(t, "db", nil)
	s.init = []byte(reply)
	return s.Addr()
}

func TestRefused(t *testing.T) {
	for _, p := range []string{"db%0D%0AX?x", "db?a%0Ab", "db/TE%00XT/abc"} {
		u := rawURL(t, "127.0.0.1:1", p)
		if _, err := (&Handler{}).Fetch(ctxT(t), &fetch.Request{URL: u}); !errors.Is(err, fetch.Refused) {
			t.Errorf("%s: %v, want Refused", p, err)
		}
		if _, err := (&Handler{}).Plan(&fetch.Request{URL: u}); !errors.Is(err, fetch.Refused) {
			t.Errorf("Plan %s: %v, want Refused", p, err)
		}
	}
}

func TestPlan(t *testing.T) {
	id := simDocID("d", 10)
	for _, tc := range []struct {
		h    *Handler
		url  string
		want []string
	}{
		{&Handler{NoInit: true}, "wais://h/demo?gophers+prospero", []string{
			`search: database "demo", query-type 3, seed-words "gophers prospero", max-documents 40`}},
		{&Handler{}, "wais://h/demo?x", []string{
			`init: protocol-version 1, preferred-message-size 1048576, maximum-record-size 1048576, implementation-name "fetch"`,
			`search: database "demo", query-type 3, seed-words "x", max-documents 40`}},
		{&Handler{NoInit: true, ChunkSize: 50}, docURL(mustParse(t, "wais://h/"), "demo", "TEXT", id), []string{
			`retrieve: database "demo", query-type 1, element-set "Document Text", docid 2=db;3=0%2010%20/docs/d;7=%00;, wt "TEXT", bytes [0,50)`,
			`retrieve: the same for each following range of 50 bytes, until a short range or the server's out-of-range diagnostic`}},
		{&Handler{}, docURL(mustParse(t, "wais://h/"), "demo", "TEXT", id), []string{
			`init: protocol-version 1, preferred-message-size 1048576, maximum-record-size 1048576, implementation-name "fetch"`,
			`retrieve: database "demo", query-type 1, element-set "Document Text", docid 2=db;3=0%2010%20/docs/d;7=%00;, wt "TEXT", bytes [0,` + strconv.Itoa(1048576-chunkOverhead-len(id)) + `)`,
			`retrieve: the same for each following range of ` + strconv.Itoa(1048576-chunkOverhead-len(id)) + ` bytes (fewer if the init agrees on a smaller message size), until a short range or the server's out-of-range diagnostic`}},
		{&Handler{NoInit: true, MaxHits: 5}, "wais://h/demo", []string{
			`search: database "demo", query-type 3, seed-words "", max-documents 5`,
			`retrieve: the WSRC source description the search offers, in ranges of 10000 bytes`}},
	} {
		got, err := tc.h.Plan(&fetch.Request{URL: mustParse(t, tc.url)})
		if err != nil || strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("Plan(%s) = %q, %v\nwant %q", tc.url, got, err, tc.want)
		}
	}
}

func TestHeadAndTrace(t *testing.T) {
	doc := bigDoc(500)
	id := simDocID("d", len(doc))
	s := newSim(t, "db", map[string][]byte{id: doc})
	u := mustParse(t, docURL(mustParse(t, "wais://"+s.Addr()+"/db"), "db", "TEXT", id))
	var tr strings.Builder
	res, err := (&Handler{}).Fetch(ctxT(t), &fetch.Request{URL: u, Head: true, Trace: fetch.NewTrace(&tr)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Body != fetch.NoBody || res.Size != 500 || res.MediaType != "text/plain" {
		t.Errorf("head: Size %d MediaType %q", res.Size, res.MediaType)
	}
	res.Body.Close()
	for _, want := range []string{"> init: ", "< init response: result 1", "> retrieve: database \"db\"", "< search response: status 0, 2 records, document text of 500 bytes, diagnostic SF"} {
		if !strings.Contains(tr.String(), want) {
			t.Errorf("trace lacks %q:\n%s", want, tr.String())
		}
	}
}

// Through a fetch.Client, as the CLI fetches.
func TestClient(t *testing.T) {
	doc := bigDoc(300)
	id := simDocID("d", len(doc))
	s := newSim(t, "db", map[string][]byte{id: doc})
	c := &fetch.Client{Parser: url.Parser{Lenient: true}}
	c.Register("wais", &Handler{})
	res, err := c.Fetch(ctxT(t), "wais://"+s.Addr()+"/db?gophers")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	hits := hitLines(t, body)
	if len(hits) != 1 {
		t.Fatalf("hits: %s", body)
	}
	res, err = c.Fetch(ctxT(t), hits[0].URL)
	if err != nil {
		t.Skipf("the Client refuses the hit URL (its policy checks the binary DocumentID for %%00): %v", err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Equal(body, doc) {
		t.Errorf("document: %d bytes", len(body))
	}
}

// TestMain fails the run when goroutines outlive the tests.
func TestMain(m *testing.M) { fetchtest.Main(m) }

// TestHeadOfHit: -I on a search hit's URL reports the length the search
// gave (issue 28: size null), although the first range does not reach the
// document's end, and the retrieval stops at that length.
func TestHeadOfHit(t *testing.T) {
	doc := bigDoc(25000)
	id := simDocID("big.txt", len(doc))
	s := newSim(t, "db", map[string][]byte{id: doc})
	h := &Handler{ChunkSize: 10000}
	hits, err := h.Search(ctxT(t), &fetch.Request{URL: mustParse(t, "wais://"+s.Addr()+"/db?gophers")})
	if err != nil || len(hits) != 1 || hits[0].Length != int64(len(doc)) {
		t.Fatalf("Search = %+v, %v", hits, err)
	}
	u, err := url.ParseLenient(hits[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Fetch(ctxT(t), &fetch.Request{URL: u, Head: true})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Size != int64(len(doc)) {
		t.Errorf("-I of %s: Size %d, want %d", hits[0].URL, res.Size, len(doc))
	}
	_, body, err := fetchAll(t, h, u)
	if err != nil || !bytes.Equal(body, doc) {
		t.Errorf("fetch of the hit: %d bytes, %v", len(body), err)
	}
}
