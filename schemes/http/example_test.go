package http_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/rfc1738/fetch/fetch"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
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
	h := &httpscheme.Handler{Redirect: c.Do}
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
