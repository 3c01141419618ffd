package crawl

import (
	"slices"
	"strings"

	"github.com/rfc1738/fetch/url"
)

// Scope says which links a crawl follows. Its zero value follows links to
// the seeds' hosts, in the seeds' schemes. A search that needs words the
// link does not carry (a gopher type 7 item, a WAIS database) is never
// followed.
type Scope struct {
	// AnyHost follows links to any host; by default only to the hosts of
	// the seeds (host and port).
	AnyHost bool
	// Schemes lists the schemes links may lead to. Empty means the seeds'
	// schemes, less the local and interactive ones: file, telnet and
	// mailto are followed only when listed here.
	Schemes []string
	// Prefixes, when not empty, limits the crawl to URLs (in their normal
	// form) that start with one of them.
	Prefixes []string
}

// neverImplied are the schemes a crawl follows only when Scope.Schemes
// names them: a page must not lead us to local files, to sessions, or to
// sending mail.
var neverImplied = []string{"file", "telnet", "tn3270", "mailto"}

// scope is a Scope made ready for a crawl's seeds.
type scope struct {
	Scope
	hosts   map[hostPort]bool
	schemes map[string]bool
}

// hostPort is a host, lower-cased, and its effective port: a URL's
// HostPort without the text made for each link.
type hostPort struct {
	host string
	port int
}

func hostPortOf(u *url.URL) hostPort {
	return hostPort{strings.ToLower(u.Host), u.EffectivePort()}
}

func newScope(s Scope, seeds []*url.URL) *scope {
	sc := &scope{Scope: s, hosts: map[hostPort]bool{}, schemes: map[string]bool{}}
	for _, u := range seeds {
		sc.hosts[hostPortOf(u)] = true
		if len(s.Schemes) == 0 && !slices.Contains(neverImplied, u.Scheme) {
			sc.schemes[u.Scheme] = true
		}
	}
	for _, name := range s.Schemes {
		sc.schemes[strings.ToLower(name)] = true
	}
	return sc
}

// allows reports whether a link to u is followed, and if not, why. k is
// u's key (its normal form), or "" for allows to make it when it needs it.
func (sc *scope) allows(u *url.URL, k string) (bool, string) {
	if asksInput(u) {
		return false, "search"
	}
	if !sc.schemes[u.Scheme] {
		return false, "scheme"
	}
	if !sc.AnyHost && !sc.hosts[hostPortOf(u)] {
		return false, "host"
	}
	if len(sc.Prefixes) > 0 {
		if k == "" {
			k = key(u)
		}
		if !slices.ContainsFunc(sc.Prefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			return false, "prefix"
		}
	}
	return true, ""
}

// asksInput reports whether u names a search that needs words the link
// does not carry: a gopher search item (type 7) or a WAIS database without
// a search. Fetching one would ask the user, or fail.
func asksInput(u *url.URL) bool {
	switch u.Family() {
	case "gopher":
		g := u.Gopher()
		return g.Type == "7" && !g.HasSearch
	case "wais":
		w := u.WAIS()
		return !w.HasSearch && !w.HasDoc
	}
	return false
}

// key is the identity under which a crawl visits a URL once: its normal
// form (url.URL.Normalize).
func key(u *url.URL) string { return u.Normalize().String() }
