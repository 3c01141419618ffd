package warc_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/warc"
	"github.com/rfc1738/fetch/schemes"
)

// A resource record, written to a buffer: the warcinfo record comes first
// on its own.
func ExampleWriter_WriteResource() {
	var out bytes.Buffer
	w := warc.NewWriter(&out, warc.Options{Software: "example/1.0"})
	_, err := w.WriteResource(&warc.Header{
		TargetURI:   "gopher://gopher.example/0/about.txt",
		Date:        time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC),
		ContentType: "text/plain",
	}, strings.NewReader("hello, gopher\n"))
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(out.String(), "\r\n") {
		switch {
		case strings.HasPrefix(line, "WARC-Type"), strings.HasPrefix(line, "WARC-Target-URI"),
			strings.HasPrefix(line, "WARC-Payload-Digest"), strings.HasPrefix(line, "Content-Length"):
			fmt.Println(line)
		}
	}
	// Output:
	// WARC-Type: warcinfo
	// Content-Length: 145
	// WARC-Type: resource
	// WARC-Target-URI: gopher://gopher.example/0/about.txt
	// WARC-Payload-Digest: sha1:MK26WIOCZTKHXTMQRNRRUCUGZ3KJF4WW
	// Content-Length: 14
}

// Recording fetches: Do fetches through the Writer, and the records are
// written when the body is closed. Install Dial to get WARC-IP-Address.
func ExampleWriter_Do() {
	f, err := os.Create("crawl.warc.gz")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	w := warc.NewWriter(f, warc.Options{Gzip: true, Filename: "crawl.warc.gz", Software: "example/1.0"})

	c := new(fetch.Client)
	schemes.Register(c)
	c.DialContext = w.Dial(c.DialContext)
	for _, u := range []string{"gopher://gopher.floodgap.com/1/", "ftp://ftp.example/pub/README"} {
		pu, err := c.Parser.Parse(u)
		if err != nil {
			log.Fatal(err)
		}
		res, err := w.Do(context.Background(), c, &fetch.Request{URL: pu})
		if err != nil {
			log.Print(err)
			continue
		}
		io.Copy(io.Discard, res.Body) // or wherever the bytes go
		if err := res.Body.Close(); err != nil {
			log.Print(err)
		}
	}
}
