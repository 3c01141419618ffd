package wais_test

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/wais"
	"github.com/rfc1738/fetch/url"
)

// Search a database, then retrieve the best hit.
func ExampleHandler_Search() {
	ctx := context.Background()
	h := &wais.Handler{}
	u, err := url.Parse("wais://wais.example.org/demo?gophers")
	if err != nil {
		panic(err)
	}
	hits, err := h.Search(ctx, &fetch.Request{URL: u})
	if err != nil || len(hits) == 0 {
		fmt.Println("no hits:", err)
		return
	}
	for _, hit := range hits {
		fmt.Printf("%4d %-4s %6d %s\n", hit.Score, hit.Type(), hit.Length, hit.Headline)
	}
	doc, err := url.Parse(hits[0].URL)
	if err != nil {
		panic(err)
	}
	res, err := h.Fetch(ctx, &fetch.Request{URL: doc})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	io.Copy(os.Stdout, res.Body)
}
