package http

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

func TestList(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		page := `<!DOCTYPE html><html><head>
	<link rel="stylesheet" href="style.css">
	<base href="/docs/">
	<base href="/ignored/">
	</head><body>
	<a href="intro.html#part2">The <b>intro</b>
	  page</a>
	<a href="../up.txt">Up</a>
	<a href="http://other.example/x?y=1">Elsewhere</a>
	<a href="#top">Top of this page</a>
	<a href="">Empty</a>
	<a href="gopher://gopher.example/0/about">Gopher</a>
	<a href="ftp://ftp.example/pub/">FTP</a>
	<a href="http://[bad">Broken</a>
	<a name="anchor-without-href">nothing</a>
	<img src="pic.png" alt="A picture">
	<iframe src="/frame.html"></iframe>
	<frame src="f2.html">
	<map><area href="area.html" alt="Region"></map>
	<A HREF="UPPER.html">Upper</A>
	<a href="unclosed.html">Unclosed
	</body></html>`
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/moved":
				http.Redirect(w, r, "/site/page.html", http.StatusFound)
			case "/site/page.html":
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				io.WriteString(w, page)
			case "/plain.txt":
				w.Header().Set("Content-Type", "text/plain")
				io.WriteString(w, `<a href="x">x</a>`)
			case "/huge-tag":
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, "<a href=\""+strings.Repeat("x", 2<<20)+"\">")
			}
		})
		h := tc.handler(t)
		c := &fetch.Client{Parser: url.Parser{Lenient: true}}
		c.Register("http", h)
		l, err := c.List(context.Background(), &fetch.Request{URL: parse(t, srv.URL+"/moved")})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		type link struct{ name, url string }
		var got []link
		for {
			e, err := l.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != fetch.ResourceFile || e.Size != -1 {
				t.Errorf("%s: kind %v size %d", e.Name, e.Kind, e.Size)
			}
			got = append(got, link{e.Name, e.URL.String()})
		}
		want := []link{
			{"style.css", srv.URL + "/site/style.css"},
			{"The intro page", srv.URL + "/docs/intro.html"},
			{"Up", srv.URL + "/up.txt"},
			{"Elsewhere", "http://other.example/x?y=1"},
			{"Gopher", "gopher://gopher.example/0/about"},
			{"FTP", "ftp://ftp.example/pub/"},
			{"A picture", srv.URL + "/docs/pic.png"},
			{"/frame.html", srv.URL + "/frame.html"},
			{"f2.html", srv.URL + "/docs/f2.html"},
			{"Region", srv.URL + "/docs/area.html"},
			{"Upper", srv.URL + "/docs/UPPER.html"},
			{"Unclosed", srv.URL + "/docs/unclosed.html"},
		}
		if len(got) != len(want) {
			t.Fatalf("links:\n%v\nwant:\n%v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("link %d = %v, want %v", i, got[i], want[i])
			}
		}
		if l.Skipped() != 1 {
			t.Errorf("Skipped = %d, want 1 (http://[bad)", l.Skipped())
		}

		if _, err := h.List(context.Background(), &fetch.Request{URL: parse(t, srv.URL+"/plain.txt")}); !errors.Is(err, fetch.Unsupported) {
			t.Errorf("List of text/plain: %v, want kind Unsupported", err)
		}
		l, err = h.List(context.Background(), &fetch.Request{URL: parse(t, srv.URL+"/huge-tag")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Next(); !errors.Is(err, fetch.Protocol) {
			t.Errorf("a 2 MiB tag: %v, want kind Protocol", err)
		}
		l.Close()
	})
}
