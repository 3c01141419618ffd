package main

import (
	"bytes"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// mirrorFiles is what --convert-links needs once the mirror is done: the
// file each URL was written to, and which of them are HTML pages.
type mirrorFiles struct {
	mu    sync.Mutex
	paths map[string]string   // normal form of the URL → file
	pages map[string]*url.URL // HTML file → its URL
}

// wrote notes a file the mirror wrote, with --convert-links.
func (m *mirrorRun) wrote(res *fetch.Resource, name string) {
	if m.cfg == nil || !m.cfg.convertLinks {
		return
	}
	f := &m.files
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.paths == nil {
		f.paths, f.pages = map[string]string{}, map[string]*url.URL{}
	}
	f.paths[res.URL.Normalize().String()] = name
	if mt, _, _ := strings.Cut(res.MediaType, ";"); strings.EqualFold(strings.TrimSpace(mt), "text/html") ||
		strings.EqualFold(strings.TrimSpace(mt), "application/xhtml+xml") {
		f.pages[name] = res.URL
	}
}

// convertLinks rewrites the links of the HTML pages mirrored, as wget's
// --convert-links: a link to a file mirrored becomes relative to the page's
// file, any other absolute. A page that cannot be rewritten is left as it
// is, with a warning.
func (m *mirrorRun) convertLinks() {
	for name, base := range m.files.pages {
		if err := m.convertPage(name, base); err != nil {
			m.e.errMu.Lock()
			fmt.Fprintf(m.e.stderr, "fetch: --convert-links: %s: %v\n", name, err)
			m.e.errMu.Unlock()
		}
	}
}

// linkAttrs are the attributes whose values are URLs.
var linkAttrs = map[string]bool{"href": true, "src": true, "poster": true, "data": true, "action": true, "srcset": true}

func (m *mirrorRun) convertPage(name string, base *url.URL) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	z := html.NewTokenizer(bytes.NewReader(b))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			out.Write(z.Raw())
			continue
		}
		raw := append([]byte(nil), z.Raw()...)
		tok := z.Token()
		changed := false
		for i, a := range tok.Attr {
			if !linkAttrs[a.Key] || a.Namespace != "" {
				continue
			}
			var v string
			if a.Key == "srcset" {
				v = m.convertSrcset(name, base, a.Val)
			} else {
				v = m.convertURL(name, base, a.Val)
			}
			if v != a.Val {
				tok.Attr[i].Val, changed = v, true
			}
		}
		if changed {
			out.WriteString(tok.String())
		} else {
			out.Write(raw)
		}
	}
	if bytes.Equal(out.Bytes(), b) {
		return nil
	}
	var mod time.Time
	if fi, err := os.Stat(name); err == nil {
		mod = fi.ModTime() // --mirror's timestamps stay the server's
	}
	return writeFileAtomic(name, &out, int64(out.Len()), mod)
}

// convertURL returns a link of the page in file name (whose URL is base)
// as --convert-links writes it.
func (m *mirrorRun) convertURL(name string, base *url.URL, v string) string {
	ref := strings.TrimSpace(v)
	if ref == "" || strings.HasPrefix(ref, "#") {
		return v
	}
	u, err := base.ResolveReference(ref)
	if err != nil {
		return v
	}
	frag := ""
	if u.HasFragment {
		frag = "#" + u.Fragment
	}
	target, ok := m.files.paths[u.Normalize().String()]
	if !ok {
		return u.String() // not mirrored: absolute, to the server
	}
	rel, err := filepath.Rel(filepath.Dir(name), target)
	if err != nil {
		return u.String()
	}
	segs := strings.Split(filepath.ToSlash(rel), "/")
	for i, s := range segs {
		if s != ".." {
			segs[i] = neturl.PathEscape(s)
		}
	}
	return strings.Join(segs, "/") + frag
}

// convertSrcset converts each candidate URL of a srcset.
func (m *mirrorRun) convertSrcset(name string, base *url.URL, v string) string {
	cands := strings.Split(v, ",")
	for i, c := range cands {
		f := strings.Fields(c)
		if len(f) == 0 {
			continue
		}
		f[0] = m.convertURL(name, base, f[0])
		cands[i] = strings.Join(f, " ")
	}
	return strings.Join(cands, ", ")
}
