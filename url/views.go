package url

import (
	"strconv"
	"strings"
)

// FTP is the decoded view of an ftp URL's path (RFC 1738 §3.2.2):
// <cwd1>/<cwd2>/.../<cwdN>/<name>;type=<typecode>.
type FTP struct {
	// Cwd holds one decoded entry per CWD command, in order; nil when there
	// is none. An empty entry is an empty CWD argument; "%2F" decodes to '/'
	// inside an entry.
	Cwd []string
	// Name is the decoded last segment: the file to RETR, or the directory
	// to list. It is empty for a URL ending in '/'.
	Name string
	// Typecode is "a", "i" or "d" (lower-cased), or "" when absent.
	Typecode string
}

// FTP returns the ftp view of the URL's path. It is meaningful for the ftp
// and ftps schemes.
func (u *URL) FTP() FTP {
	path, code := splitTypecode(u.Path)
	var v FTP
	v.Typecode = code
	if path == "" {
		return v
	}
	segs := strings.Split(path, "/")
	if len(segs) > 1 {
		v.Cwd = make([]string, len(segs)-1)
		for i, s := range segs[:len(segs)-1] {
			v.Cwd[i] = unescape(s)
		}
	}
	v.Name = unescape(segs[len(segs)-1])
	return v
}

// splitTypecode splits a trailing ";type=X" off an FTP path.
func splitTypecode(p string) (path, code string) {
	i := strings.LastIndex(p, ";type=")
	if i < 0 || i+7 != len(p) {
		return p, ""
	}
	switch p[i+6] {
	case 'a', 'A':
		return p[:i], "a"
	case 'i', 'I':
		return p[:i], "i"
	case 'd', 'D':
		return p[:i], "d"
	}
	return p, ""
}

// HTTP is the view of an http URL (RFC 1738 §3.3).
type HTTP struct {
	Path      string // "/" followed by the encoded hpath
	Search    string // the encoded search part, without '?'
	HasSearch bool
}

// HTTP returns the http view of the URL. It is meaningful for http and https.
func (u *URL) HTTP() HTTP {
	p := u.Path
	var v HTTP
	if i := strings.IndexByte(p, '?'); i >= 0 {
		v.Search, v.HasSearch = p[i+1:], true
		p = p[:i]
	}
	v.Path = "/" + p
	return v
}

// RequestURI returns the path and search as sent on an HTTP request line.
func (h HTTP) RequestURI() string {
	if h.HasSearch {
		return h.Path + "?" + h.Search
	}
	return h.Path
}

// Gopher is the decoded view of a gopher URL (RFC 1738 §3.4).
type Gopher struct {
	Type      string // the item type character; "1" when the path is empty
	Selector  string // decoded
	Search    string // decoded, after the first %09
	HasSearch bool
	Plus      string // the decoded Gopher+ string, after the second %09
	HasPlus   bool
}

// Gopher returns the gopher view of the URL. It is meaningful for gopher and
// gophers.
func (u *URL) Gopher() Gopher {
	p := u.Path
	v := Gopher{Type: "1"}
	if p == "" {
		return v
	}
	if p[0] == '%' && len(p) >= 3 {
		v.Type, p = unescape(p[:3]), p[3:]
	} else {
		v.Type, p = p[:1], p[1:]
	}
	sel, rest, found := strings.Cut(p, "%09")
	v.Selector = unescape(sel)
	if found {
		search, plus, hasPlus := strings.Cut(rest, "%09")
		v.Search, v.HasSearch = unescape(search), true
		if hasPlus {
			v.Plus, v.HasPlus = unescape(plus), true
		}
	}
	return v
}

// News is the view of a news URL (RFC 1738 §3.6): exactly one of Group and
// Article is set. "news:*" has Group "*".
type News struct {
	Group   string // decoded newsgroup name, or "*"
	Article string // decoded message-id without angle brackets: unique@host
}

// News returns the news view of the URL. It is meaningful for news and snews.
// An unencoded '@' makes the URL an article (§3.6); a lenient parser's
// "news:<id@host>" has its angle brackets removed.
func (u *URL) News() News {
	d := unescape(u.Path)
	if strings.IndexByte(u.Path, '@') >= 0 {
		return News{Article: strings.TrimSuffix(strings.TrimPrefix(d, "<"), ">")}
	}
	return News{Group: d}
}

// NNTP is the view of an nntp URL (RFC 1738 §3.7).
type NNTP struct {
	Group      string // decoded
	Article    int64  // the article number, when HasArticle
	HasArticle bool
}

// NNTP returns the nntp view of the URL. It is meaningful for nntp and nntps.
func (u *URL) NNTP() NNTP {
	g, n, found := strings.Cut(u.Path, "/")
	v := NNTP{Group: unescape(g)}
	if found && n != "" {
		if a, err := strconv.ParseInt(n, 10, 64); err == nil {
			v.Article, v.HasArticle = a, true
		}
	}
	return v
}

// WAIS is the decoded view of a wais URL (RFC 1738 §3.9).
type WAIS struct {
	Database  string
	Search    string
	HasSearch bool
	WType     string
	WPath     string // the document id, as opaque decoded bytes
	HasDoc    bool   // wtype and wpath are present
}

// WAIS returns the wais view of the URL.
func (u *URL) WAIS() WAIS {
	p := u.Path
	var v WAIS
	if i := strings.IndexByte(p, '?'); i >= 0 {
		v.Database = unescape(p[:i])
		v.Search, v.HasSearch = unescape(p[i+1:]), true
		return v
	}
	db, rest, found := strings.Cut(p, "/")
	v.Database = unescape(db)
	if found {
		wt, wp, _ := strings.Cut(rest, "/")
		v.WType, v.WPath, v.HasDoc = unescape(wt), unescape(wp), true
	}
	return v
}

// File is the decoded view of a file URL (RFC 1738 §3.10).
type File struct {
	Host     string   // "" or "localhost" name this machine
	Path     string   // decoded, beginning with '/'
	Segments []string // the decoded segments; one may hold a '/' from %2F
}

// File returns the file view of the URL.
func (u *URL) File() File {
	v := File{Host: u.Host}
	raw := strings.Split(u.Path, "/")
	v.Segments = make([]string, len(raw))
	for i, s := range raw {
		v.Segments[i] = unescape(s)
	}
	v.Path = "/" + unescape(u.Path)
	return v
}

// Prospero is the decoded view of a prospero URL (RFC 1738 §3.11).
type Prospero struct {
	HSOName string  // the decoded host-specific object name
	Fields  []Field // field=value pairs, in order
}

// Field is one ";name=value" of a prospero URL, decoded.
type Field struct {
	Name, Value string
}

// Prospero returns the prospero view of the URL.
func (u *URL) Prospero() Prospero {
	parts := strings.Split(u.Path, ";")
	v := Prospero{HSOName: unescape(parts[0])}
	for _, f := range parts[1:] {
		name, value, _ := strings.Cut(f, "=")
		v.Fields = append(v.Fields, Field{Name: unescape(name), Value: unescape(value)})
	}
	return v
}

// Mailto is the view of a mailto URL (RFC 1738 §3.5).
type Mailto struct {
	Address string // the decoded RFC 822 address
}

// Mailto returns the mailto view of the URL.
func (u *URL) Mailto() Mailto { return Mailto{Address: unescape(u.Path)} }
