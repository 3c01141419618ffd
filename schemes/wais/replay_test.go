package wais

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.ParseLenient(s)
	if err != nil {
		t.Fatalf("ParseLenient(%q): %v", s, err)
	}
	return u
}

// rawURL builds a wais URL whose path the parser would refuse (libwww's
// layouts hold unescaped '/'), as a handler may still be given one.
func rawURL(t *testing.T, addr, path string) *url.URL {
	u := mustParse(t, "wais://"+addr+"/x")
	u.Path = path
	return u
}

func fetchAll(t *testing.T, h *Handler, u *url.URL) (*fetch.Resource, []byte, error) {
	t.Helper()
	res, err := h.Fetch(ctxT(t), &fetch.Request{URL: u})
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

func hitLines(t *testing.T, body []byte) []Hit {
	t.Helper()
	var hits []Hit
	for _, line := range strings.SplitAfter(string(body), "\n") {
		if line == "" {
			continue
		}
		h, ok := ParseLine(line)
		if !ok {
			t.Fatalf("line %q does not parse", line)
		}
		hits = append(hits, h)
	}
	return hits
}

// The done-when of issue 8: search "gophers", then fetch a hit's URL.
func TestReplaySearchThenFetchHit(t *testing.T) {
	ws, _ := loadTranscript(t, "wais-waissearch-init-search-retrieve")
	// The search, then waissearch's own retrieval of alpha.txt: the range
	// the length the search gave bounds, [0,130).
	srv := newReplay(t, part(ws, 0, 4), append(part(ws, 0, 2), part(ws, 4, 6)...))
	h := &Handler{ChunkSize: 10000} // the recordings ask in ranges of 10000
	res, body, err := fetchAll(t, h, mustParse(t, "wais://"+srv.Addr()+"/demo?gophers"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != fetch.ResourceList || res.Size != int64(len(body)) {
		t.Errorf("Kind %v Size %d, want list of %d bytes", res.Kind, res.Size, len(body))
	}
	hits := hitLines(t, body)
	if len(hits) != 2 {
		t.Fatalf("%d hits, want 2:\n%s", len(hits), body)
	}
	want := []struct {
		headline string
		score    int64
		length   int64
	}{{"alpha.txt   /srv/wais/docs/", 145, 130}, {"gamma.txt   /srv/wais/docs/", 142, 125}}
	for i, w := range want {
		g := hits[i]
		if g.Headline != w.headline || g.Score != w.score || g.Length != w.length || g.Type() != "TEXT" {
			t.Errorf("hit %d = %+v, want %+v", i, g, w)
		}
		// libwww's layout, database/wtype/length/wpath, as waissearch
		// and Lynx wrote hits.
		if !strings.HasPrefix(g.URL, "wais://"+srv.Addr()+"/demo/TEXT/"+itoa(int(w.length))+"/%01") {
			t.Errorf("hit %d URL %q", i, g.URL)
		}
	}
	// The hit's URL retrieves alpha.txt as waissearch did, and -I of it
	// would say the length the search gave.
	u, err := url.ParseLenient(hits[0].URL)
	if err != nil {
		t.Fatalf("ParseLenient of the hit URL: %v", err)
	}
	res, body, err = fetchAll(t, h, u)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != string(fixture(t, "docs/alpha.txt")) {
		t.Errorf("document = %q", body)
	}
	if res.Size != 130 || res.MediaType != "text/plain" || res.Kind != fetch.ResourceFile {
		t.Errorf("Size %d MediaType %q Kind %v", res.Size, res.MediaType, res.Kind)
	}
}

func libwwwPath(t *testing.T, name string) string {
	_, tr := loadTranscript(t, name)
	u := tr.URL
	i := strings.Index(u, "/demo/")
	return u[i+1:]
}

// waissearch retrieves with the length it learnt from the hit: libwww's
// database/wtype/length/wpath layout bounds the range the same way.
func TestReplayKnownLength(t *testing.T) {
	ws, _ := loadTranscript(t, "wais-waissearch-init-search-retrieve")
	probe, _ := loadTranscript(t, "wais-probe-init-search-retrieve")
	srv := newReplay(t, append(part(ws, 0, 2), part(ws, 4, 6)...), part(probe, 0, 4), append(part(probe, 0, 2), part(probe, 4, 6)...))
	h := &Handler{ChunkSize: 10000}
	alpha, _ := encodeLibwww(docIDOf(t, ws[4].data))
	_, body, err := fetchAll(t, h, rawURL(t, srv.Addr(), "demo/TEXT/130/"+alpha))
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != string(fixture(t, "docs/alpha.txt")) {
		t.Errorf("alpha = %q", body)
	}
	_, body, err = fetchAll(t, h, mustParse(t, "wais://"+srv.Addr()+"/demo?prospero"))
	if err != nil {
		t.Fatal(err)
	}
	hits := hitLines(t, body)
	if len(hits) != 1 || hits[0].Length != 128 || !strings.HasPrefix(hits[0].Headline, "beta.txt") {
		t.Fatalf("hits %+v", hits)
	}
	beta, _ := encodeLibwww(hits[0].DocID)
	res, body, err := fetchAll(t, h, rawURL(t, srv.Addr(), "demo/TEXT/128/"+beta))
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != string(fixture(t, "docs/beta.txt")) || res.Size != 128 {
		t.Errorf("beta = %q (Size %d)", body, res.Size)
	}
}

// docIDOf returns the DocumentID term of a recorded retrieval message.
func docIDOf(t *testing.T, m []byte) string {
	r, err := decodeRequest(m[headerLen:])
	if err != nil {
		t.Fatal(err)
	}
	return r.DocID()
}

func TestReplayChunked(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chunk int
	}{
		{"wais-probe-retrieve-chunked", 50},
		{"wais-probe-retrieve-exact-multiple", 25},
		{"wais-probe-retrieve-whole-10000", 10000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, tr := loadTranscript(t, tc.name)
			want := fixture(t, strings.TrimPrefix(tr.Retrieved.Fixture, "fixtures/wais/"))
			// The libwww form from the transcript, with init (answered by
			// the canned response) and without.
			for _, h := range []*Handler{{ChunkSize: tc.chunk}, {ChunkSize: tc.chunk, NoInit: true}} {
				srv := newReplay(t, ms, ms)
				u := rawURL(t, srv.Addr(), libwwwPath(t, tc.name))
				res, body, err := fetchAll(t, h, u)
				if err != nil {
					t.Fatal(err)
				}
				if string(body) != string(want) {
					t.Errorf("body %q, want %q", body, want)
				}
				if res.Size != -1 && res.Size != int64(len(want)) {
					t.Errorf("Size %d", res.Size)
				}
				// The RFC 1738 form of the same DocumentID asks the same.
				u2 := mustParse(t, docURL(u, "demo", "TEXT", docIDOf(t, ms[0].data)))
				if _, body, err = fetchAll(t, h, u2); err != nil || string(body) != string(want) {
					t.Errorf("RFC form %s: %q, %v", u2, body, err)
				}
			}
		})
	}
}

func TestReplayErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		path   string // "" for the transcript's URL
		offset int64
		chunk  int
		kind   fetch.Kind
	}{
		{"wais-probe-unknown-database", "nosuchdb?fox", 0, 0, fetch.NotFound},
		{"wais-probe-retrieve-bad-docid", "", 0, 50, fetch.NotFound},
		{"wais-probe-retrieve-missing-document", "", 0, 50, fetch.NotFound},
		{"wais-probe-retrieve-past-end", "", 150, 50, fetch.NotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, tr := loadTranscript(t, tc.name)
			srv := newReplay(t, ms)
			var u *url.URL
			if tc.path != "" {
				u = mustParse(t, "wais://"+srv.Addr()+"/"+tc.path)
			} else {
				u = rawURL(t, srv.Addr(), tr.URL[strings.Index(tr.URL, "/demo/")+1:])
			}
			h := &Handler{ChunkSize: tc.chunk}
			res, err := h.Fetch(ctxT(t), &fetch.Request{URL: u, Offset: tc.offset})
			if err == nil {
				res.Body.Close()
				t.Fatal("no error")
			}
			if res != nil || !errors.Is(err, tc.kind) {
				t.Errorf("Fetch: %v (kind %v), want %v", err, fetch.KindOf(err), tc.kind)
			}
			var d Diagnostic
			if !errors.As(err, &d) || d.Code == "" {
				t.Errorf("Fetch: %v does not wrap the Diagnostic", err)
			}
		})
	}
}

func TestReplaySearches(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		want        []string // headline prefixes, in order
	}{
		{"wais-probe-search-nohits", "zzzzqqq", nil},
		{"wais-probe-search-two-words", "gophers%20prospero", []string{"beta.txt", "alpha.txt", "gamma.txt"}},
		{"wais-probe-search-two-words", "gophers+prospero", []string{"beta.txt", "alpha.txt", "gamma.txt"}},
	} {
		t.Run(tc.name+"/"+tc.query, func(t *testing.T) {
			ms, _ := loadTranscript(t, tc.name)
			srv := newReplay(t, ms)
			res, body, err := fetchAll(t, &Handler{}, mustParse(t, "wais://"+srv.Addr()+"/demo?"+tc.query))
			if err != nil {
				t.Fatal(err)
			}
			hits := hitLines(t, body)
			if len(hits) != len(tc.want) || res.Extra[ExtraHits] != itoa(len(tc.want)) {
				t.Fatalf("%d hits (%s), want %d:\n%s", len(hits), res.Extra[ExtraHits], len(tc.want), body)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(hits[i].Headline, w) {
					t.Errorf("hit %d %q, want %s", i, hits[i].Headline, w)
				}
				if i > 0 && hits[i].Score > hits[i-1].Score {
					t.Errorf("hit %d scores above hit %d", i, i-1)
				}
			}
		})
	}
}

func TestReplayDescribe(t *testing.T) {
	ms, _ := loadTranscript(t, "wais-probe-search-empty-database-info")
	srv := newReplay(t, ms)
	res, body, err := fetchAll(t, &Handler{ChunkSize: 10000}, mustParse(t, "wais://"+srv.Addr()+"/demo"))
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != string(fixture(t, "index/demo.src")) {
		t.Errorf("description = %q", body)
	}
	if res.MediaType != "application/x-wais-source" {
		t.Errorf("MediaType %q", res.MediaType)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
