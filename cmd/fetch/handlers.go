package main

import (
	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/schemes/ftp"
	"github.com/rfc1738/fetch/schemes/gopher"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
	"github.com/rfc1738/fetch/schemes/mailto"
	"github.com/rfc1738/fetch/schemes/nntp"
	"github.com/rfc1738/fetch/schemes/telnet"
	"github.com/rfc1738/fetch/schemes/wais"
)

// schemeHandlers are the handlers of the schemes that options configure,
// each set as its options are read (options_<scheme>.go) and registered
// in place of schemes.Register's defaults (register). The zero value of
// each is the library's default.
type schemeHandlers struct {
	http   httpscheme.Handler // http and https: one handler, one pool
	ftp    ftp.Handler        // ftp and ftps
	gopher gopher.Handler     // gopher and gophers
	news   nntp.Handler       // news, snews, nntp and nntps
	telnet telnet.Handler
	wais   wais.Handler
	mailto mailto.Handler
}

// register registers every built-in handler in cl: schemes.Register's
// defaults, and these in place of theirs, each for every scheme it serves
// there, so that the schemes that shared a handler (and its connections)
// still do.
func (hs *schemeHandlers) register(cl *fetch.Client) {
	schemes.Register(cl)
	for _, r := range []struct {
		h       fetch.Handler
		schemes []string
	}{
		{&hs.http, []string{"http", "https"}},
		{&hs.ftp, []string{"ftp", "ftps"}},
		{&hs.gopher, []string{"gopher", "gophers"}},
		{&hs.news, []string{"news", "snews", "nntp", "nntps"}},
		{&hs.telnet, []string{"telnet"}},
		{&hs.wais, []string{"wais"}},
		{&hs.mailto, []string{"mailto"}},
	} {
		for _, s := range r.schemes {
			cl.Replace(s, r.h)
		}
	}
}
