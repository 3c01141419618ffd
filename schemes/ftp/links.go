package ftp

import (
	"context"
	"path"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// maxLinks bounds the symbolic links of one listing that are resolved;
// those past it are listed as files of unknown size.
const maxLinks = 10_000

// resolveLinks finds out what the symbolic links a listing of dir named
// (LIST's "l" lines, MLSD's type=OS.unix=slink) point to, once the
// listing's transfer is over: a link that CWD enters is a directory, else
// SIZE tells a file's size (-1 when it cannot, as for a dangling link). It
// returns their entries, in the listing's order.
//
// A link to a directory that is not below dir, as the server's PWD shows
// both, gets the URL of the directory it leads to rather than a URL below
// dir: a link to "." or to "..", or any link that leads back, then names
// a directory already met, so that neither a crawl nor fs.WalkDir over
// NewFS goes round a cycle of links for ever.
func (h *Handler) resolveLinks(ctx context.Context, req *fetch.Request, dir []string, base *url.URL, links []item) ([]fetch.Entry, error) {
	out := make([]fetch.Entry, 0, len(links))
	err := h.session(ctx, req, dir, func(c *ctrl, key string) (bool, error) {
		out = out[:0]
		if err := c.enter(dir); err != nil {
			return false, err
		}
		here, err := c.pwd()
		if err != nil {
			return false, err
		}
		for i, it := range links {
			e, err := resolveLink(c, base, here, it)
			if err == errLost {
				// Where the connection is is unknown: the rest stay
				// unresolved, and it goes back to the pool marked so.
				c.cwds = append(c.cwds, "\x00")
				for _, it := range links[i:] {
					if e, err := entry(base, it); err == nil {
						out = append(out, e)
					}
				}
				return false, nil
			}
			if err != nil {
				return false, err
			}
			out = append(out, e)
		}
		return false, nil
	})
	return out, err
}

// errLost reports that resolveLink could not return to the listed
// directory.
var errLost = fetch.Errorf(fetch.Protocol, "cannot return to the listed directory")

// resolveLink resolves one link of the directory whose path (PWD) is
// here, with c in that directory, and leaves c there.
func resolveLink(c *ctrl, base *url.URL, here string, it item) (fetch.Entry, error) {
	it.link = false
	code, _, err := c.cmd("CWD " + it.name)
	if err != nil {
		return fetch.Entry{}, err
	}
	if code/100 != 2 {
		if err := c.setType("I"); err != nil {
			return fetch.Entry{}, err
		}
		it.size, _, _, err = c.size(it.name)
		if err != nil {
			return fetch.Entry{}, err
		}
		if it.size < 0 {
			c.trace.Notef("%s: a link that is no directory, and whose size the server does not tell", fetch.Sanitize(it.name))
		}
		return entry(base, it)
	}
	target, err := c.pwd()
	if err != nil {
		return fetch.Entry{}, err
	}
	if here == "" {
		return fetch.Entry{}, errLost
	}
	if code, _, err := c.cmd("CWD " + here); err != nil {
		return fetch.Entry{}, err
	} else if code/100 != 2 {
		return fetch.Entry{}, errLost
	}
	it.dir, it.size = true, -1
	e, err := entry(base, it)
	if err != nil || target == "" || below(target, here) {
		return e, err
	}
	// The link leads up or aside: name the directory itself.
	u, err := url.Parse(realURL(base, c.loginDir, target))
	if err != nil {
		return e, nil
	}
	c.trace.Notef("%s: a link to %s, not below %s: listed by that directory's own URL", fetch.Sanitize(it.name), fetch.Sanitize(target), fetch.Sanitize(here))
	e.URL = u
	return e, nil
}

// pwd returns the current directory the server's PWD reports, or "" when
// it is not an absolute path.
func (c *ctrl) pwd() (string, error) {
	code, msg, err := c.cmd("PWD")
	if err != nil {
		return "", err
	}
	if d, ok := parsePWD(msg); code == 257 && ok && strings.HasPrefix(d, "/") {
		return path.Clean(d), nil
	}
	return "", nil
}

// below reports whether the absolute path p is inside the directory dir,
// not dir itself.
func below(p, dir string) bool {
	if dir == "/" {
		return p != "/"
	}
	return strings.HasPrefix(p, dir+"/")
}

// realURL is the URL of the directory at the absolute path p on base's
// server, ending in "/": relative to the login directory when p is inside
// it, else absolute ("%2F" first).
func realURL(base *url.URL, loginDir, p string) string {
	var segs []string
	switch {
	case loginDir != "" && (p == loginDir || below(p, loginDir)):
		segs = strings.Split(strings.TrimPrefix(strings.TrimPrefix(p, loginDir), "/"), "/")
		if segs[0] == "" {
			segs = nil
		}
	case p == "/":
		segs = []string{"/"}
	default:
		segs = strings.Split(p[1:], "/")
		segs[0] = "/" + segs[0]
	}
	return segmentsURL(base, segs) + "/"
}
