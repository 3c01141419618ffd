package main

import (
	"context"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// path is where -r writes a resource (mirrorPath), less the host folder
// with --no-host-directories and the first --cut-dirs folders.
func (m *mirrorRun) path(u *url.URL, kind fetch.ResourceKind) (string, error) {
	p, err := mirrorPath(u, kind)
	if err != nil || m.cfg == nil || !m.cfg.noHostDirs && m.cfg.cutDirs == 0 {
		return p, err
	}
	segs := strings.Split(p, string(filepath.Separator))
	host, rest := segs[0], segs[1:]
	rest = rest[min(m.cfg.cutDirs, len(rest)-1):] // the folders, never the file
	if !m.cfg.noHostDirs {
		rest = append([]string{host}, rest...)
	}
	return filepath.Join(rest...), nil
}

// inDomains reports whether u's host is in --domains (all are when it is
// not given).
func (m *mirrorRun) inDomains(u *url.URL) bool {
	if m.cfg == nil || len(m.cfg.domains) == 0 {
		return true
	}
	h := strings.ToLower(u.Host)
	for _, d := range m.cfg.domains {
		d = strings.ToLower(strings.TrimPrefix(d, "."))
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return false
}

// keeps reports whether -r writes u's file: --accept, --reject (by the
// file's name: a suffix, or a pattern with *, ? or [...]) and their
// regexps (on the whole URL).
func (m *mirrorRun) keeps(u *url.URL) bool {
	c := m.cfg
	if c == nil {
		return true
	}
	if c.acceptRE != nil || c.rejectRE != nil {
		s := u.String()
		if c.acceptRE != nil && !c.acceptRE.MatchString(s) || c.rejectRE != nil && c.rejectRE.MatchString(s) {
			return false
		}
	}
	if len(c.accept) == 0 && len(c.reject) == 0 {
		return true // (a link's check: no name made when no pattern needs one)
	}
	name := path.Base(fileName(u))
	if len(c.accept) > 0 && !matchAny(c.accept, name) {
		return false
	}
	return !matchAny(c.reject, name)
}

// fileName is the path of u's file on its server, decoded as far as the
// URL allows.
func fileName(u *url.URL) string {
	switch u.Family() {
	case "http":
		p, err := url.Unescape(u.HTTP().Path)
		if err != nil {
			return u.HTTP().Path
		}
		return p
	case "ftp":
		f := u.FTP()
		return f.Name
	case "gopher":
		return u.Gopher().Selector
	}
	return u.Path
}

// matchAny reports whether name matches one of wget's accept or reject
// patterns: with a wildcard, a glob of the whole name, else a suffix.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if strings.ContainsAny(p, "*?[") {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
			continue
		}
		if strings.HasSuffix(name, p) {
			return true
		}
	}
	return false
}

// mayHoldLinks reports whether a link may lead to a page, menu or
// directory whose links -r wants though it does not keep the file: a
// listing, a name ending in "/", an HTML name, or none with no extension.
func mayHoldLinks(u *url.URL, kind fetch.ResourceKind) bool {
	if kind == fetch.ResourceDirectory || kind == fetch.ResourceMenu || kind == fetch.ResourceList {
		return true
	}
	if u.Family() == "gopher" {
		return u.Gopher().Type == "1"
	}
	n := fileName(u)
	if n == "" || strings.HasSuffix(n, "/") {
		return true
	}
	switch strings.ToLower(path.Ext(n)) {
	case "", ".html", ".htm", ".xhtml", ".shtml", ".php", ".asp", ".aspx", ".jsp", ".cgi":
		return true
	}
	return false
}

// stored is --mirror's timestamping: the file -r wrote for u before, by
// its modification time, and the file as a resource for its links.
func (m *mirrorRun) stored(ctx context.Context, u *url.URL) (time.Time, func() (*fetch.Resource, error), bool) {
	kind := fetch.ResourceFile
	if u.Family() == "gopher" && u.Gopher().Type == "1" {
		kind = fetch.ResourceMenu
	}
	rel, err := m.path(u, kind)
	if err != nil {
		return time.Time{}, nil, false
	}
	name := filepath.Join(m.root, rel)
	fi, err := os.Stat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return time.Time{}, nil, false
	}
	open := func() (*fetch.Resource, error) {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		mt := mime.TypeByExtension(path.Ext(strings.SplitN(filepath.Base(name), "?", 2)[0]))
		return &fetch.Resource{URL: u, Kind: kind, MediaType: mt, Size: fi.Size(), ModTime: fi.ModTime(), Body: f}, nil
	}
	return fi.ModTime(), open, true
}
