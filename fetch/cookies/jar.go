// Package cookies is a cookie jar (RFC 6265 §5.3's storage model) that
// reads and writes the Netscape cookie file format curl and wget use, so
// that one jar serves a fetch.Client (its Jar field, for every hop it
// follows), the command line's -b, -c and -j, and the crawler.
//
// net/http/cookiejar cannot list what it holds, which writing a file
// needs; this Jar can. Domain cookies for a public suffix are refused
// (golang.org/x/net/publicsuffix), as net/http/cookiejar refuses them.
package cookies

import (
	"net"
	"net/http"
	neturl "net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/publicsuffix"
)

// MaxCookies bounds the cookies a Jar holds; past it, the one used least
// recently goes.
const MaxCookies = 3000

// Jar holds cookies. The zero Jar is empty and ready to use; it is safe
// for concurrent use.
type Jar struct {
	// Now returns the current time; nil means time.Now.
	Now func() time.Time

	mu      sync.Mutex
	entries map[key]*entry
	seq     uint64 // creation order, for Cookies' sort
}

// key names a cookie in the jar (RFC 6265 §5.3 step 11).
type key struct{ domain, path, name string }

// entry is one stored cookie.
type entry struct {
	name, value  string
	domain, path string
	hostOnly     bool // sent to domain itself only, not its subdomains
	secure       bool
	httpOnly     bool
	expires      time.Time // zero: a session cookie
	created      uint64
	used         time.Time
}

var _ http.CookieJar = (*Jar)(nil)

func (j *Jar) now() time.Time {
	if j.Now != nil {
		return j.Now()
	}
	return time.Now()
}

// SetCookies stores the cookies a reply for u set, by RFC 6265 §5.3: a
// Domain attribute must domain-match u's host and not be a public suffix
// (else the cookie is dropped); no Domain makes a host-only cookie; no
// Path takes the directory of u's path; Max-Age, else Expires, sets the
// expiry, and a past one deletes the cookie.
func (j *Jar) SetCookies(u *neturl.URL, cookies []*http.Cookie) {
	host := canonicalHost(u.Host)
	if host == "" {
		return
	}
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, c := range cookies {
		e, ok := newEntry(c, host, u.Path, now)
		if !ok {
			continue
		}
		k := key{e.domain, e.path, e.name}
		if !e.expires.IsZero() && !e.expires.After(now) {
			delete(j.entries, k)
			continue
		}
		j.store(k, e)
	}
}

// store puts e in the jar under k, keeping the creation order of a
// cookie it replaces, and bounds the jar.
func (j *Jar) store(k key, e *entry) {
	if j.entries == nil {
		j.entries = make(map[key]*entry)
	}
	if old, ok := j.entries[k]; ok {
		e.created = old.created
	} else {
		j.seq++
		e.created = j.seq
	}
	j.entries[k] = e
	if len(j.entries) > MaxCookies {
		var oldest key
		var when time.Time
		first := true
		for k, e := range j.entries {
			if first || e.used.Before(when) {
				oldest, when, first = k, e.used, false
			}
		}
		delete(j.entries, oldest)
	}
}

// newEntry makes the entry a cookie set by host for a request to path
// would be, or reports that it must be dropped.
func newEntry(c *http.Cookie, host, reqPath string, now time.Time) (*entry, bool) {
	if c.Name == "" || badText(c.Name) || badText(c.Value) {
		return nil, false
	}
	e := &entry{name: c.Name, value: c.Value, secure: c.Secure, httpOnly: c.HttpOnly, used: now}
	domain := strings.TrimPrefix(strings.ToLower(c.Domain), ".")
	switch {
	case domain == "":
		e.domain, e.hostOnly = host, true
	case isIP(host):
		if domain != host {
			return nil, false // an address sets host-only cookies alone
		}
		e.domain, e.hostOnly = host, true
	case domain != host && !strings.HasSuffix(host, "."+domain):
		return nil, false
	default:
		if ps, _ := publicsuffix.PublicSuffix(domain); ps == domain {
			if domain != host {
				return nil, false
			}
			e.domain, e.hostOnly = host, true // §5.3 step 5
			break
		}
		e.domain = domain
	}
	e.path = c.Path
	if e.path == "" || e.path[0] != '/' {
		e.path = defaultPath(reqPath)
	}
	switch {
	case c.MaxAge < 0:
		e.expires = time.Unix(1, 0)
	case c.MaxAge > 0:
		e.expires = now.Add(time.Duration(c.MaxAge) * time.Second)
	case !c.Expires.IsZero():
		e.expires = c.Expires
	}
	return e, true
}

// Cookies returns the cookies to send with a request for u (RFC 6265
// §5.4): those whose domain and path match, secure ones only over https,
// longer paths first, then the earlier made.
func (j *Jar) Cookies(u *neturl.URL) []*http.Cookie {
	host := canonicalHost(u.Host)
	if host == "" {
		return nil
	}
	path := u.Path
	if path == "" {
		path = "/"
	}
	https := u.Scheme == "https"
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	var picked []*entry
	for k, e := range j.entries {
		if !e.expires.IsZero() && !e.expires.After(now) {
			delete(j.entries, k)
			continue
		}
		if e.secure && !https {
			continue
		}
		if e.hostOnly && host != e.domain || !e.hostOnly && host != e.domain && !strings.HasSuffix(host, "."+e.domain) {
			continue
		}
		if !pathMatch(path, e.path) {
			continue
		}
		e.used = now
		picked = append(picked, e)
	}
	sort.Slice(picked, func(a, b int) bool {
		if len(picked[a].path) != len(picked[b].path) {
			return len(picked[a].path) > len(picked[b].path)
		}
		return picked[a].created < picked[b].created
	})
	out := make([]*http.Cookie, len(picked))
	for i, e := range picked {
		out[i] = &http.Cookie{Name: e.name, Value: e.value}
	}
	return out
}

// Len returns the number of cookies held, expired ones included until
// they are next looked at.
func (j *Jar) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.entries)
}

// canonicalHost returns host lower case, without its port, brackets or
// trailing dot.
func canonicalHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
}

func isIP(host string) bool { return net.ParseIP(host) != nil }

// defaultPath is RFC 6265 §5.1.4's default-path of a request path.
func defaultPath(p string) string {
	i := strings.LastIndexByte(p, '/')
	if p == "" || p[0] != '/' || i <= 0 {
		return "/"
	}
	return p[:i]
}

// pathMatch is RFC 6265 §5.1.4's path-match.
func pathMatch(reqPath, cookiePath string) bool {
	if reqPath == cookiePath {
		return true
	}
	if !strings.HasPrefix(reqPath, cookiePath) {
		return false
	}
	return strings.HasSuffix(cookiePath, "/") || reqPath[len(cookiePath)] == '/'
}

// badText reports whether s holds a control character (CR, LF, NUL, TAB
// and the like), which cannot go into a Cookie field or a cookie file
// line.
func badText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}
