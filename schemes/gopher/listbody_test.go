package gopher

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// ListBody reads a fetched menu's items from its bytes, without a
// request; an item that is no menu is Unsupported.
func TestListBody(t *testing.T) {
	u, _ := url.Parse("gopher://hole.example/1/")
	h := &Handler{}
	menu := "iinfo\tfake\t(NULL)\t0\r\n0About\t/about.txt\thole.example\t70\r\n1Sub\t/sub\thole.example\t70\r\nbroken line\r\n.\r\n"
	l, err := h.ListBody(&fetch.Request{URL: u}, &fetch.Resource{URL: u, Kind: fetch.ResourceMenu}, strings.NewReader(menu))
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
		got = append(got, e.Kind.String()+" "+e.URL.String())
	}
	if want := []string{"file gopher://hole.example/0/about.txt", "menu gopher://hole.example/1/sub"}; !slices.Equal(got, want) || l.Skipped() != 1 {
		t.Errorf("ListBody = %q, %d skipped; want %q, 1 skipped", got, l.Skipped(), want)
	}
	f, _ := url.Parse("gopher://hole.example/0/about.txt")
	if _, err := h.ListBody(&fetch.Request{URL: f}, &fetch.Resource{URL: f}, strings.NewReader("x")); !errors.Is(err, fetch.Unsupported) {
		t.Errorf("ListBody of a text item: %v, want Unsupported", err)
	}
}
