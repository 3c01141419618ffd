package main

import (
	"io"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/ftp"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
	"github.com/rfc1738/fetch/schemes/nntp"
	"github.com/rfc1738/fetch/schemes/telnet"
	"github.com/rfc1738/fetch/schemes/wais"
)

// TestClientHandlers: the command builds the handlers of the schemes its
// options configure and puts them in the Client in place of the defaults,
// one handler for the schemes that share one (http and https keep one
// pool), every other scheme keeping its default.
func TestClientHandlers(t *testing.T) {
	c, err := parseArgs([]string{"--raw", "--pipeline", "3", "--http2", "--nntp-server", "news.example:1119",
		"--ftp-active", "--wais-max-hits", "7", "--telnet-login", "-s", "http://h/"})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := newClient(c, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	handler := func(scheme string) fetch.Handler {
		h, ok := cl.Handler(scheme)
		if !ok {
			t.Fatalf("no handler for %s", scheme)
		}
		return h
	}
	web, ok := handler("http").(*httpscheme.Handler)
	if !ok || web != handler("https") {
		t.Fatalf("http and https do not share one http handler: %T, %T", handler("http"), handler("https"))
	}
	if !web.Raw || web.Pipeline != 3 || !web.HTTP2 || web.UserAgent != "fetch/"+version {
		t.Errorf("http handler %+v: want Raw, Pipeline 3, HTTP2 and the command's User-Agent", web)
	}
	news, ok := handler("news").(*nntp.Handler)
	if !ok || news.Server != "news.example:1119" {
		t.Fatalf("news handler %#v: want Server news.example:1119", handler("news"))
	}
	for _, s := range []string{"snews", "nntp", "nntps"} {
		if handler(s) != news {
			t.Errorf("%s does not share the news handler", s)
		}
	}
	f, ok := handler("ftp").(*ftp.Handler)
	if !ok || !f.Active || !f.Raw || handler("ftps") != f {
		t.Errorf("ftp handler %#v (ftps %p): want one, Active and Raw, for both", handler("ftp"), handler("ftps"))
	}
	if w, ok := handler("wais").(*wais.Handler); !ok || w.MaxHits != 7 {
		t.Errorf("wais handler %#v: want MaxHits 7", handler("wais"))
	}
	if tn, ok := handler("telnet").(*telnet.Handler); !ok || !tn.Login || tn.Advise != nil {
		t.Errorf("telnet handler %#v: want Login, and no advice with -s", handler("telnet"))
	}
	for _, s := range []string{"file", "prospero", "gopher", "gophers", "mailto"} {
		handler(s)
	}
}
