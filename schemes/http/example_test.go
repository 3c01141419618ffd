package http_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
	"github.com/rfc1738/fetch/url"
)

// A Client with the http handler registered for http and https, the way
// schemes.Register wires it: redirects to other schemes go back through
// the Client.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		fmt.Fprintf(w, "hello from %s\n", r.URL.Path)
	}))
	defer srv.Close()

	c := new(fetch.Client)
	h := new(httpscheme.Handler)
	c.Register("http", h)
	c.Register("https", h)
	defer c.Close()

	res, err := c.Fetch(context.Background(), srv.URL+"/old")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	io.Copy(os.Stdout, res.Body)
	fmt.Println(res.Extra["http-status"], res.Size)
	// Output:
	// hello from /new
	// 200 OK 16
}

// A crawler's link extractor: the links of an HTML page as entries,
// resolved against the page and its <base>.
func ExampleHandler_List() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<base href="/docs/"><a href="intro.html">Intro</a> <img src="/logo.png" alt="Logo">`+
			`<a href="gopher://gopher.example/1/">Gopher</a>`)
	}))
	defer srv.Close()

	c := new(fetch.Client)
	h := new(httpscheme.Handler)
	c.Register("http", h)
	defer c.Close()

	u, _ := url.ParseLenient(srv.URL + "/index.html")
	l, err := c.List(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	for {
		e, err := l.Next()
		if err != nil {
			break
		}
		fmt.Println(e.Name, strings.TrimPrefix(e.URL.String(), srv.URL))
	}
	// Output:
	// Intro /docs/intro.html
	// Logo /logo.png
	// Gopher gopher://gopher.example/1/
}
