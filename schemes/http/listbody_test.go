package http

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// ListBody reads a fetched page's links from its bytes, without a
// request; a reply that is not HTML is Unsupported.
func TestListBody(t *testing.T) {
	u, _ := url.Parse("http://web.example/docs/")
	h := &Handler{}
	res := &fetch.Resource{URL: u, MediaType: "text/html; charset=utf-8"}
	l, err := h.ListBody(&fetch.Request{URL: u}, res, strings.NewReader(`<a href="a.html">A</a><img src="../p.png"><a href="http://[bad">x</a>`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		e, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.URL.String())
	}
	if want := []string{"http://web.example/docs/a.html", "http://web.example/p.png"}; !slices.Equal(got, want) || l.Skipped() != 1 {
		t.Errorf("ListBody = %q, %d skipped; want %q, 1 skipped", got, l.Skipped(), want)
	}
	res.MediaType = "text/plain"
	if _, err := h.ListBody(&fetch.Request{URL: u}, res, strings.NewReader("x")); !errors.Is(err, fetch.Unsupported) {
		t.Errorf("ListBody of text/plain: %v, want Unsupported", err)
	}
}
