package nntp_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/nntp"
)

// A crawler reads an article's header and the URLs in its body. The
// reader would usually be the Body of a fetch of news:<id>.
func ExampleReadArticle() {
	body := "From: someone@example.org\n" +
		"Subject: Where to find it\n" +
		"Message-ID: <1234@example.org>\n" +
		"\n" +
		"The FAQ is at <URL:http://www.example.org/faq/\n" +
		"  part1.html>, and the archive at ftp://ftp.example.org/pub/.\n"
	a, err := nntp.ReadArticle(strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Header.Get("Subject"))
	urls, err := a.URLs()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range urls {
		fmt.Println(m.URL)
	}
	// Output:
	// Where to find it
	// http://www.example.org/faq/part1.html
	// ftp://ftp.example.org/pub/
}

// A client fetches news URLs from the server it is configured with.
func ExampleHandler() {
	c := new(fetch.Client)
	news := &nntp.Handler{Server: "news.example.org"}
	for _, s := range []string{"news", "snews", "nntp", "nntps"} {
		c.Register(s, news)
	}
	defer c.Close() // says QUIT on the idle connections

	res, err := c.Fetch(context.Background(), "news:1234@example.org")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer res.Body.Close()
	io.Copy(os.Stdout, res.Body)
}
