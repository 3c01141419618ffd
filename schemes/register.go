// Package schemes wires every built-in scheme handler into a fetch.Client,
// explicitly: no init functions, no blank imports.
package schemes

import (
	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/file"
	"github.com/rfc1738/fetch/schemes/gopher"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
	"github.com/rfc1738/fetch/schemes/prospero"
	"github.com/rfc1738/fetch/url"
)

// Config holds the scheme-specific settings of the built-in handlers. The
// zero value is the default for every field; a handler whose setting is
// empty reads the conventional environment variable where one exists.
type Config struct {
	// HTTP and HTTPS.
	HTTPRaw          bool   // --raw: deliver bodies still content-encoded (default: gzip decoded)
	HTTPUserAgent    string // --user-agent; "" means "fetch/<version>"
	HTTPMaxRedirects int    // --max-redirs; 0 means 10, negative follows none

	// Gopher and gophers.
	GopherAnswers []string // --gopher-answer, repeated: answers to a Gopher+ +ASK form, in order (default: asked on the terminal)

	// Settings are added here, one group per scheme, as schemes arrive.
}

// Register registers every built-in handler in c, configured by cfg.
func Register(c *fetch.Client, cfg Config) {
	web := &httpscheme.Handler{
		Raw: cfg.HTTPRaw, UserAgent: cfg.HTTPUserAgent, MaxRedirects: cfg.HTTPMaxRedirects,
		Redirect: c.Do, Policy: func(u *url.URL) error { return c.Policy.Check(u) },
	}
	c.Register("http", web)
	c.Register("https", web)
	// One line per scheme: c.Register("name", handler).
	c.Register("prospero", &prospero.Handler{Follow: c.Do, Policy: func(u *url.URL) error { return c.Policy.Check(u) }})
	c.Register("file", &file.Handler{})
	g := &gopher.Handler{Answers: cfg.GopherAnswers}
	c.Register("gopher", g)
	c.Register("gophers", g)
}
