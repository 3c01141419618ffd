package nntp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

func listAll(t *testing.T, h *Handler, raw string) ([]fetch.Entry, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := h.List(ctx, &fetch.Request{URL: parse(t, raw)})
	if err != nil {
		return nil, err
	}
	return fetchtest.Entries(l)
}

func TestListOverview(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	h := newHandler(t, addr)
	es, err := listAll(t, h, "nntp://"+addr+"/local.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(es), es)
	}
	for i, e := range es {
		want := "nntp://" + addr + "/local.test/" + string(rune('1'+i))
		if e.URL == nil || e.URL.String() != want || e.Kind != fetch.ResourceArticle || e.Name == "" {
			t.Errorf("entry %d: %+v, want URL %s, Kind article and the subject as name", i, e, want)
		}
		if e.Size <= 0 {
			t.Errorf("entry %d: size %d, want the article's bytes", i, e.Size)
		}
	}
	// The entries' URLs fetch the articles.
	if _, body, err := get(t, h, es[0].URL.String()); err != nil || body == "" {
		t.Errorf("fetching %s: %v", es[0].URL, err)
	}
}

func TestListGroups(t *testing.T) {
	f := newServer(t)
	addr := f.start(nil)
	h := newHandler(t, addr)
	es, err := listAll(t, h, "news:*")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, e := range es {
		names[e.Name] = e.URL.String()
		if e.Kind != fetch.ResourceList {
			t.Errorf("%s: Kind %v, want list", e.Name, e.Kind)
		}
	}
	if names["local.test"] != "nntp://"+addr+"/local.test" || names["local.empty"] == "" {
		t.Errorf("groups %v, want local.test and local.empty with nntp URLs", names)
	}
	if _, err := listAll(t, h, "news:one@example.org"); !errors.Is(err, fetch.Unsupported) {
		t.Errorf("List of an article: %v, want Kind Unsupported", err)
	}
}
