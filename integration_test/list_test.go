//go:build integration

package integration_test

import (
	"context"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/url"
)

// listAll lists rawURL through a Client with every scheme registered (the
// library, not the binary: the command has no listing option yet).
func listAll(t *testing.T, rawURL string) ([]fetch.Entry, int) {
	t.Helper()
	c := &fetch.Client{Parser: url.Parser{Lenient: true}}
	c.Policy.AllowPortOverride = true
	schemes.Register(c)
	t.Cleanup(func() { c.Close() })
	u, err := c.Parser.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := c.List(ctx, &fetch.Request{URL: u})
	if err != nil {
		t.Fatalf("List(%s): %v", rawURL, err)
	}
	defer l.Close()
	var es []fetch.Entry
	for {
		e, err := l.Next()
		if err == io.EOF {
			return es, l.Skipped()
		}
		if err != nil {
			t.Fatalf("List(%s): %v", rawURL, err)
		}
		es = append(es, e)
	}
}

// TestListGopherMenu lists gophernicus's top menu.
func TestListGopherMenu(t *testing.T) {
	base, port := gopherBase(t)
	es, skipped := listAll(t, base+"/")
	var got []string
	for _, e := range es {
		got = append(got, e.Kind.String()+" "+e.Name+" "+e.URL.String())
	}
	want := []string{
		"file A text item gopher://127.0.0.1:" + port + "/0/text.txt",
		"file A binary item gopher://127.0.0.1:" + port + "/9/bin.dat",
		"menu A directory gopher://127.0.0.1:" + port + "/1/sub/",
		"list Search gopher://127.0.0.1:" + port + "/7/cgi-bin/search",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || skipped != 0 {
		t.Errorf("entries (%d skipped):\n%s\nwant:\n%s", skipped, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestListHTMLPage lists the links of nginx's autoindex page.
func TestListHTMLPage(t *testing.T) {
	base := "http://" + env(t, "FETCH_IT_HTTP_ADDR")
	es, _ := listAll(t, base+"/dir/")
	var got []string
	for _, e := range es {
		got = append(got, e.URL.String())
	}
	sort.Strings(got)
	want := []string{base + "/", base + "/dir/a.txt", base + "/dir/b.txt", base + "/dir/sub/"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("links of /dir/: %v, want %v", got, want)
	}
}
