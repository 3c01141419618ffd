// Package schemes wires every built-in scheme handler into a fetch.Client,
// explicitly: no init functions, no blank imports.
package schemes

import (
	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/file"
)

// Config holds the scheme-specific settings of the built-in handlers. The
// zero value is the default for every field; a handler whose setting is
// empty reads the conventional environment variable where one exists.
type Config struct {
	// Settings are added here, one group per scheme, as schemes arrive.
}

// Register registers every built-in handler in c, configured by cfg.
func Register(c *fetch.Client, cfg Config) {
	// One line per scheme: c.Register("name", handler).
	c.Register("file", &file.Handler{})
}
