// Package schemes wires every built-in scheme handler into a fetch.Client,
// explicitly: no init functions, no blank imports.
//
// Register gives each scheme its handler's zero value, the defaults. Each
// handler's configuration belongs to the handler: a program that wants a
// handler configured otherwise builds it and puts it in place with
// fetch.Client.Replace, for each scheme the handler serves. Some schemes
// share one handler, and with it one pool of connections:
//
//	http, https                  *http.Handler
//	ftp, ftps                    *ftp.Handler
//	gopher, gophers              *gopher.Handler
//	news, snews, nntp, nntps     *nntp.Handler
//
// and mailto, telnet, wais, prospero and file have one each.
package schemes

import (
	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/file"
	"github.com/rfc1738/fetch/schemes/ftp"
	"github.com/rfc1738/fetch/schemes/gopher"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
	"github.com/rfc1738/fetch/schemes/mailto"
	"github.com/rfc1738/fetch/schemes/nntp"
	"github.com/rfc1738/fetch/schemes/prospero"
	"github.com/rfc1738/fetch/schemes/telnet"
	"github.com/rfc1738/fetch/schemes/wais"
)

// Register registers every built-in handler in c, each with its defaults.
// It panics, as c.Register does, if c already has a handler for one of
// the schemes.
func Register(c *fetch.Client) {
	web := &httpscheme.Handler{}
	c.Register("http", web)
	c.Register("https", web)
	// One line per scheme: c.Register("name", handler).
	news := &nntp.Handler{}
	for _, s := range []string{"news", "snews", "nntp", "nntps"} {
		c.Register(s, news)
	}
	ftpH := &ftp.Handler{}
	c.Register("ftp", ftpH)
	c.Register("ftps", ftpH)
	c.Register("mailto", &mailto.Handler{})
	c.Register("telnet", &telnet.Handler{})
	c.Register("prospero", &prospero.Handler{})
	c.Register("file", &file.Handler{})
	c.Register("wais", &wais.Handler{})
	g := &gopher.Handler{}
	c.Register("gopher", g)
	c.Register("gophers", g)
}
