package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// checkScope refuses, before it is fetched, a URL whose scheme would ignore
// an option given: an option that means something for some schemes only
// (option.schemes) is a usage error with a URL of another scheme, rather
// than silently not applied.
func (e *runEnv) checkScope(u *url.URL) error {
	fam := u.Family()
	for _, o := range e.cfg.scoped {
		if slices.Contains(o.schemes, fam) {
			continue
		}
		name := "--" + o.long
		if o.short != 0 {
			name = fmt.Sprintf("-%c/--%s", o.short, o.long)
		}
		var msg string
		switch {
		case o.long == "data" && fam == "http":
			msg = name + " is the message of a mailto: URL; fetch retrieves, and does not send request bodies over HTTP (use curl -d for a POST)"
		default:
			msg = fmt.Sprintf("%s means something for %s URLs only, and this is a %s URL", name, schemeList(o.schemes), u.Scheme)
		}
		return &fetch.Error{Op: "fetch", URL: u.Redacted(), Kind: fetch.Usage, Err: usageErr(msg)}
	}
	return nil
}

// schemeList names URL families for a message: "http(s)", "mailto".
func schemeList(fams []string) string {
	names := make([]string, len(fams))
	for i, f := range fams {
		names[i] = f + ":"
		if f == "http" {
			names[i] = "http(s):"
		}
	}
	return strings.Join(names, " and ")
}

// usageErr is a plain error text for a *fetch.Error of Kind Usage.
type usageErr string

func (e usageErr) Error() string { return string(e) }
