package ftp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"mime"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

var (
	_ fetch.Lister     = (*Handler)(nil)
	_ fetch.IdleCloser = (*Handler)(nil)
)

// List lists the directory the URL names, as entries: its <cwd> segments
// and its name, if any, are the directory ("ftp://h/pub/",
// "ftp://h/pub;type=d" and "ftp://h/pub" all list pub). The listing is
// MLSD's (RFC 3659) when FEAT offers it, else LIST's, parsed (the Unix
// "ls -l" and DOS formats; a line neither fits is counted by
// Listing.Skipped, never dropped silently), else NLST's names, whose
// kind a name list does not tell (they are listed as files). The URL of
// a directory entry ends in "/". Symbolic links come last, each listed
// as what it leads to: a directory if CWD enters it, else a file whose
// size SIZE tells (see resolveLinks).
func (h *Handler) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	j, err := newJob(req)
	if err != nil {
		return nil, err
	}
	dir := slices.Clone(j.cwds)
	if j.name != "" {
		dir = append(dir, j.name)
	}
	base, err := url.Parse(segmentsURL(req.URL, dir) + "/")
	if err != nil {
		return nil, fetch.Errorf(fetch.Malformed, "the directory's URL: %w", err)
	}
	var l *fetch.Listing
	err = h.session(ctx, req, dir, func(c *ctrl, key string) (bool, error) {
		var err error
		l, err = h.entries(ctx, c, req, key, dir, base)
		return err == nil, err
	})
	return l, err
}

// session runs do on a logged-in control connection whose <cwd> path is
// cwds. do reports whether it handed c on (to a Body or a Listing, which
// then give it back); otherwise session gives c back: to the pool when
// still in step (no error, or the error is a reply), else closed. A pooled
// connection the server closed while it was idle fails before its first
// reply: session then logs in afresh, once.
func (h *Handler) session(ctx context.Context, req *fetch.Request, cwds []string, do func(c *ctrl, key string) (handed bool, err error)) error {
	lg := h.credentials(req)
	key := lg.key(req.URL.Scheme, req.URL.HostPort())
	repiped := false
	for attempt := 0; ; attempt++ {
		c, reused, err := h.acquire(ctx, req, lg, key, cwds)
		if err != nil {
			return err
		}
		c.setIdle(req)
		handed, err := do(c, key)
		if err != nil || !handed {
			h.release(key, c, err == nil || isReply(err))
		}
		if err == nil {
			return nil
		}
		if reused && attempt == 0 && !isReply(err) && c.replies == 0 && ctx.Err() == nil {
			req.Trace.Notef("the reused connection was closed by the server: logging in afresh")
			continue
		}
		if errors.Is(err, errPipeLost) && !repiped && ctx.Err() == nil {
			repiped = true // once: the server is no longer sent commands together
			continue
		}
		return err
	}
}

// entries enters dir and starts the listing: MLSD, LIST or NLST.
func (h *Handler) entries(ctx context.Context, c *ctrl, req *fetch.Request, key string, dir []string, base *url.URL) (*fetch.Listing, error) {
	if err := c.enter(dir); err != nil {
		return nil, err
	}
	if err := c.setType("A"); err != nil {
		return nil, err
	}
	feat, err := c.features()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	var parse func(string) (item, error)
	var t *transfer
	switch {
	case feat["MLST"]:
		parse = parseMLSD
		t, err = h.transfer(ctx, c, req, key, "MLSD", 0, nil)
	default:
		parse = func(line string) (item, error) { return parseLIST(line, now) }
		t, err = h.transfer(ctx, c, req, key, "LIST", 0, nil)
		var re *fetch.ReplyError
		if errors.As(err, &re) && (re.Code == 500 || re.Code == 502) {
			c.trace.Notef("the server has no LIST: listing names only (NLST)")
			parse = func(line string) (item, error) { return item{name: line, size: -1}, nil }
			t, err = h.transfer(ctx, c, req, key, "NLST", 0, nil)
		}
	}
	if err != nil {
		return nil, err
	}
	lines := bufio.NewReaderSize(t, 4096)
	var links []item           // the listing's symbolic links, resolved after it
	var resolved []fetch.Entry // their entries, handed out last
	done := false
	next := func() (fetch.Entry, error) {
		for {
			if done {
				if len(resolved) == 0 {
					return fetch.Entry{}, io.EOF
				}
				e := resolved[0]
				resolved = resolved[1:]
				return e, nil
			}
			line, err := readLine(lines)
			if err == io.EOF {
				// The transfer is over (its connection back in the
				// pool): the links can be asked about now.
				done = true
				if len(links) > 0 {
					if resolved, err = h.resolveLinks(ctx, req, dir, base, links); err != nil {
						return fetch.Entry{}, err
					}
				}
				continue
			}
			if err != nil {
				return fetch.Entry{}, err
			}
			if line == "" {
				continue
			}
			it, err := parse(line)
			if err == errSkip {
				continue
			}
			if err != nil {
				return fetch.Entry{}, err
			}
			if it.link && len(links) < maxLinks {
				links = append(links, it)
				continue
			}
			return entry(base, it)
		}
	}
	return fetch.NewListing(next, t), nil
}

// entry makes the fetch.Entry of a listed item in the directory base.
func entry(base *url.URL, it item) (fetch.Entry, error) {
	if strings.ContainsAny(it.name, "/\x00") {
		return fetch.Entry{}, unparsed("listing", it.name)
	}
	raw := EntryURL(base, it.name)
	kind := fetch.ResourceFile
	if it.dir {
		raw += "/"
		kind = fetch.ResourceDirectory
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fetch.Entry{}, unparsed("listing", it.name)
	}
	media := it.media
	if media == "" && !it.dir {
		media = mime.TypeByExtension(path.Ext(it.name))
	}
	return fetch.Entry{Name: it.name, URL: u, Kind: kind, Size: it.size, ModTime: it.mtime, MediaType: media}, nil
}

// readLine reads one line of a listing without its CR LF. A line longer
// than maxEntry is read to its end and reported unparsed; io.EOF comes
// after the last line.
func readLine(r *bufio.Reader) (string, error) {
	var line []byte
	long := false
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) <= maxEntry {
			line = append(line, chunk...)
		} else {
			long = true
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (err != io.EOF || len(line) == 0) {
			return "", err
		}
		if long {
			return "", unparsed("listing", string(line[:80])+"...")
		}
		return strings.TrimRight(string(line), "\r\n"), nil
	}
}

// features asks FEAT (RFC 2389) once per connection and returns the
// features offered, by their first word, upper case ("MLST", "SIZE").
func (c *ctrl) features() (map[string]bool, error) {
	if c.feat != nil {
		return c.feat, nil
	}
	code, msg, err := c.cmd("FEAT")
	if err != nil {
		return nil, err
	}
	c.feat = map[string]bool{}
	if code == 211 {
		lines := strings.Split(msg, "\n")
		for _, l := range lines[min(1, len(lines)):] {
			if w := strings.Fields(l); len(w) > 0 {
				c.feat[strings.ToUpper(w[0])] = true
			}
		}
	}
	return c.feat, nil
}
