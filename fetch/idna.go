package fetch

import (
	"golang.org/x/net/idna"

	"github.com/rfc1738/fetch/url"
)

// IDNAHost maps an international domain name to its ASCII form by IDNA
// 2008 with the UTS #46 mapping for lookup (golang.org/x/net/idna's
// Lookup profile): "Bücher.test" becomes "xn--bcher-kva.test". It is
// url.Parser's MapHost for lenient parsing: the url package keeps to the
// standard library, so the mapping lives here.
func IDNAHost(host string) (string, error) {
	return idna.Lookup.ToASCII(host)
}

// parser returns the Parser that Fetch parses with: c.Parser, with
// IDNAHost as the MapHost of a lenient one that has none.
func (c *Client) parser() url.Parser {
	p := c.Parser
	if p.Lenient && p.MapHost == nil {
		p.MapHost = IDNAHost
	}
	return p
}
