package schemes

import (
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// TestRegisterShares: Register gives every built-in scheme a handler, and
// the schemes the package doc groups share one, so that a program
// replacing the group's handler (Client.Replace on each) keeps one pool
// for them.
func TestRegisterShares(t *testing.T) {
	c := new(fetch.Client)
	Register(c)
	groups := [][]string{
		{"http", "https"},
		{"ftp", "ftps"},
		{"gopher", "gophers"},
		{"news", "snews", "nntp", "nntps"},
		{"mailto"}, {"telnet"}, {"wais"}, {"prospero"}, {"file"},
	}
	seen := map[fetch.Handler]string{}
	for _, g := range groups {
		first, ok := c.Handler(g[0])
		if !ok {
			t.Fatalf("no handler for %s", g[0])
		}
		if s, dup := seen[first]; dup {
			t.Errorf("%s shares its handler with %s, of another group", g[0], s)
		}
		seen[first] = g[0]
		for _, s := range g[1:] {
			if h, _ := c.Handler(s); h != first {
				t.Errorf("%s has a handler of its own, not %s's", s, g[0])
			}
		}
	}
}
