package crawl

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// addBatch is how many links an extraction hands the frontier at once.
const addBatch = 256

// extraction finds the links of one resource as its body is read: the
// bytes Visit and the crawl read go to a reader of links (HTML, or the
// handler's BodyLister), gathered while the body is small (see syncMax),
// else through a pipe as they come; or, for a directory listed as a
// resource, each entry is a link as it is rendered. The links of a longer
// body go to the frontier as they are found, a few hundred at a time, so
// that a page of a million links is never held whole.
type extraction struct {
	cr   *crawl
	ctx  context.Context
	from *Link
	// read reads the links from the body's bytes; nil when they come
	// from entries. Until the body is more than syncMax bytes, it waits
	// with the bytes gathered in buf, and reads them when the body ends,
	// where the body is read; a longer body starts it in a goroutine of
	// its own (pw), fed as the bytes come.
	read     func(io.Reader)
	buf      *[]byte
	pw       *io.PipeWriter
	wg       sync.WaitGroup
	batch    []Link
	nofollow bool // the page's <meta name=robots> said nofollow
	keep     func(Link)
	hook     hookLinks
}

// syncMax is how many bytes of a body its links wait for before they
// are read, to be read where the body is once it ends: most pages are
// smaller, and reading them so costs no goroutine (its stack grown anew
// for each page) and no hand-over at each read. A longer body's links go
// to the frontier as they are found.
const syncMax = 32 << 10

// bodyBufs holds the buffers of bodies whose links wait (see syncMax).
var bodyBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, syncMax)
	return &b
}}

// extract starts the extraction of res's links; nil when res names none
// the crawl can read.
func (cr *crawl) extract(ctx context.Context, from *Link, res *fetch.Resource) *extraction {
	ex := &extraction{cr: cr, ctx: ctx, from: from}
	if eb := listed(res.Body); eb != nil {
		eb.onEntry = ex.entry
		return ex
	}
	if isHTML(res.MediaType) {
		ex.start(func(r io.Reader) {
			bad := htmlLinks(r, res.URL, ex.link, func() { ex.nofollow = true })
			cr.count(func(s *Stats) { s.Unparsed += bad })
		})
		return ex
	}
	if hd, ok := cr.c.Client.Handler(res.URL.Scheme); ok {
		if bl, ok := hd.(fetch.BodyLister); ok {
			// ListBody may read as it starts: it runs where the bytes go.
			ex.start(func(r io.Reader) {
				lst, err := bl.ListBody(&fetch.Request{URL: res.URL}, res, r)
				if err != nil {
					if listable(res) {
						cr.unlisted(res, err)
					}
					return
				}
				for {
					e, err := lst.Next()
					if err != nil {
						break
					}
					if e.URL != nil {
						ex.link(entryLink(e))
					}
				}
				cr.count(func(s *Stats) { s.Unparsed += lst.Skipped() })
			})
			return ex
		}
	}
	if listable(res) {
		cr.unlisted(res, fetch.Errorf(fetch.Unsupported, "its handler reads no listing from a fetched body (fetch.BodyLister)"))
	}
	return nil
}

// unlisted counts and logs a listing whose links cannot be read.
func (cr *crawl) unlisted(res *fetch.Resource, err error) {
	cr.count(func(s *Stats) { s.Unlisted++ })
	cr.logf(slog.LevelWarn, "the links of this listing cannot be read", "url", res.URL.Redacted(), "err", err)
}

// start sets read to read the links from the bytes of the body, as they
// are written (see extraction.read).
func (ex *extraction) start(read func(io.Reader)) { ex.read = read }

// stream starts read in a goroutine of its own, fed through a pipe, with
// the bytes gathered so far.
func (ex *extraction) stream() {
	pr, pw := io.Pipe()
	ex.pw = pw
	read := ex.read
	ex.read = nil
	ex.wg.Add(1)
	go func() {
		defer ex.wg.Done()
		read(flushing{pr, ex})
		io.Copy(io.Discard, pr) // the rest, so that the tee never blocks
		pr.Close()
	}()
	if ex.buf != nil {
		pw.Write(*ex.buf)
		ex.release()
	}
}

// release gives the buffer of gathered bytes back.
func (ex *extraction) release() {
	if ex.buf != nil {
		*ex.buf = (*ex.buf)[:0]
		bodyBufs.Put(ex.buf)
		ex.buf = nil
	}
}

// flushing hands the links found so far to the frontier each time the
// link reader waits for more of the body: none waits behind a slow page.
type flushing struct {
	r  io.Reader
	ex *extraction
}

func (f flushing) Read(p []byte) (int, error) {
	f.ex.flush()
	return f.r.Read(p)
}

// write tees bytes of the body to the link reader.
func (ex *extraction) write(p []byte) {
	if ex == nil || len(p) == 0 {
		return
	}
	if ex.read != nil {
		if ex.buf == nil {
			ex.buf = bodyBufs.Get().(*[]byte)
		}
		if len(*ex.buf)+len(p) <= syncMax {
			*ex.buf = append(*ex.buf, p...)
			return
		}
		ex.stream()
	}
	if ex.pw != nil {
		ex.pw.Write(p)
	}
}

// finish waits for the links of a body read to its end, and hands the
// last of them to the frontier.
func (ex *extraction) finish() {
	if ex == nil {
		return
	}
	if ex.read != nil {
		var b []byte
		if ex.buf != nil {
			b = *ex.buf
		}
		ex.read(flushing{bytes.NewReader(b), ex})
		ex.read = nil
		ex.release()
	}
	if ex.pw != nil {
		ex.pw.Close()
	}
	ex.wg.Wait()
	ex.flush()
}

// abort ends the extraction of a body not read to its end. The links
// already handed to the frontier stay; the rest are dropped.
func (ex *extraction) abort() {
	if ex == nil {
		return
	}
	ex.read = nil
	ex.release()
	if ex.pw != nil {
		ex.pw.CloseWithError(io.ErrUnexpectedEOF)
	}
	ex.wg.Wait()
	ex.batch = nil
}

// entryLink is the link of a listing's entry.
func entryLink(e fetch.Entry) Link {
	return Link{URL: e.URL, Tag: "entry", Kind: e.Kind, Listed: true}
}

// entry takes an entry of a directory listed as a resource.
func (ex *extraction) entry(e fetch.Entry) {
	if e.URL != nil {
		ex.link(entryLink(e))
	}
}

// link takes one link found: it is checked, and queued with the next
// batch.
func (ex *extraction) link(l Link) bool {
	if ex.keep == nil {
		// Made once an extraction, not once a link.
		ex.keep = func(l Link) {
			ex.batch = append(ex.batch, l)
			if len(ex.batch) >= addBatch {
				ex.flush()
			}
		}
		ex.hook.add = func(a Link) { ex.hook.added = append(ex.hook.added, a) }
	}
	ex.cr.consider(ex.ctx, ex.from, l, ex.nofollow, &ex.hook, ex.keep)
	return true
}

// hookLinks gathers the links a Follow hook adds; reused from link to
// link of an extraction.
type hookLinks struct {
	added []Link
	add   func(Link)
}

// flush hands the batch to the frontier.
func (ex *extraction) flush() {
	if len(ex.batch) == 0 {
		return
	}
	ex.cr.add(ex.ctx, ex.batch)
	clear(ex.batch)
	ex.batch = ex.batch[:0]
}

// add queues links in the frontier and wakes the crawl's reader.
func (cr *crawl) add(ctx context.Context, links []Link) {
	cr.mu.Lock()
	n, err := cr.fr.Add(ctx, links...)
	cr.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			cr.stop(err)
		}
		return
	}
	if n > 0 {
		cr.cond.Broadcast()
	}
}

// consider applies the rules to a link found in from: nofollow, no local
// files from the network, the scope, and the Follow hook (unless hook is
// nil: a link the hook added). keep takes each link to queue, in normal
// form with its key.
func (cr *crawl) consider(ctx context.Context, from *Link, l Link, pageNofollow bool, hook *hookLinks, keep func(Link)) {
	l.Referrer, l.Depth, l.Public = from.URL, from.Depth+1, from.Public
	if l.Depth > cr.c.Depth && !requisite(&l) {
		cr.count(func(s *Stats) { s.OutOfScope++ })
		return
	}
	if !cr.c.FollowNofollow && (pageNofollow || l.HasRel("nofollow")) {
		cr.count(func(s *Stats) { s.Nofollow++ })
		return
	}
	if l.URL.Scheme == "file" && from.URL.Scheme != "file" {
		// A page of the network never leads to the files of this
		// machine, whatever the scope says.
		cr.count(func(s *Stats) { s.Local++ })
		cr.logf(slog.LevelDebug, "not followed: a local file named by a network resource", "url", l.URL.Redacted(), "referrer", from.URL.Redacted())
		return
	}
	// The link's normal form and its text (its key but for a Key of the
	// Crawler's), made once for the scope's prefixes and the frontier
	// unless the hook changes the link.
	norm := l.URL.Normalize()
	text := norm.String()
	if ok, why := cr.scope.allows(l.URL, text); !ok {
		cr.count(func(s *Stats) { s.OutOfScope++ })
		cr.logf(slog.LevelDebug, "not followed: out of scope", "url", l.URL.Redacted(), "why", why)
		return
	}
	if hook != nil && cr.c.Follow != nil {
		u, was := l.URL, *l.URL
		var user url.Userinfo
		if u.User != nil {
			user = *u.User
		}
		follow := cr.c.Follow(ctx, &l, hook.add)
		for _, a := range hook.added {
			if a.URL != nil {
				cr.consider(ctx, from, a, false, nil, keep)
			}
		}
		clear(hook.added)
		hook.added = hook.added[:0]
		if !follow || l.URL == nil {
			cr.count(func(s *Stats) { s.Dropped++ })
			return
		}
		if l.URL != u || *u != was || u.User != nil && *u.User != user {
			norm = l.URL.Normalize() // changed by the hook
			text = norm.String()
		}
	}
	l.URL = norm
	if cr.c.Key != nil {
		l.Key = cr.c.Key(l.URL)
	} else {
		l.Key = text
	}
	if l.Tag == "link" && l.HasRel("canonical") {
		// The page says it is a copy of l: l is not fetched again.
		if l.Key != from.Key && !cr.c.FollowCanonical {
			cr.mu.Lock()
			cr.canonical.add(hashKey(l.Key))
			cr.mu.Unlock()
		}
		return
	}
	keep(l)
}

// follows reports whether the links of l's resource are read: below the
// depth, and at it for the requisites of its pages.
func (cr *crawl) follows(l *Link) bool {
	return l.Depth < cr.c.Depth || cr.c.Requisites && l.Depth == cr.c.Depth && l.Tag != "css" && !requisite(l)
}

// requisite reports whether a link is what its page needs to show.
func requisite(l *Link) bool {
	switch l.Tag {
	case "img", "script", "source", "embed", "object", "audio", "video", "track", "iframe", "frame", "css":
		return true
	case "link":
		return !l.HasRel("canonical") && !l.HasRel("alternate") && !l.HasRel("next") && !l.HasRel("prev")
	}
	return false
}

// listFirst reports whether l is fetched by listing it, once, through
// its handler's Lister: a directory a listing named, or a seed, whose
// handler cannot list from a fetched body.
func (cr *crawl) listFirst(l *Link) bool {
	hd, ok := cr.c.Client.Handler(l.URL.Scheme)
	if !ok {
		return false
	}
	if _, ok := hd.(fetch.BodyLister); ok {
		return false
	}
	if _, ok := hd.(fetch.Lister); !ok {
		return false
	}
	if l.Listed {
		return isListKind(l.Kind)
	}
	return l.Depth == 0
}

// listAsResource lists req's URL and returns the listing as a resource:
// Kind ResourceDirectory, its Body the entries' names, one a line (a
// directory's with a "/"), as its links are found.
func (cr *crawl) listAsResource(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	lst, err := cr.c.Client.List(ctx, req)
	if err != nil {
		return nil, err
	}
	return &fetch.Resource{URL: req.URL, Kind: fetch.ResourceDirectory, Size: -1, MediaType: "text/plain; charset=utf-8",
		Body: &entriesBody{cr: cr, l: lst}}, nil
}

// record has the Sink record res, a listing the crawl rendered, when it
// is a Recorder; res is returned as it is otherwise (and when nil).
func (cr *crawl) record(req *fetch.Request, res *fetch.Resource) *fetch.Resource {
	rec, ok := cr.c.Sink.(Recorder)
	if res == nil || !ok {
		return res
	}
	eb, _ := res.Body.(*entriesBody)
	res.Body = recordedBody{rec.Tee(req, res), eb}
	return res
}

// recordedBody is a rendered listing's body as the Sink records it.
type recordedBody struct {
	io.ReadCloser
	eb *entriesBody
}

// listed returns the listing body is the rendering of; nil when it is
// none.
func listed(body io.ReadCloser) *entriesBody {
	switch b := body.(type) {
	case *entriesBody:
		return b
	case recordedBody:
		return b.eb
	}
	return nil
}

// entriesBody renders a Listing's entries as lines of text.
type entriesBody struct {
	cr      *crawl
	l       *fetch.Listing
	buf     []byte
	err     error
	onEntry func(fetch.Entry)
}

func (b *entriesBody) Read(p []byte) (int, error) {
	for len(b.buf) == 0 && b.err == nil {
		e, err := b.l.Next()
		if err != nil {
			b.err = err
			b.cr.count(func(s *Stats) { s.Unparsed += b.l.Skipped() })
			break
		}
		name := strings.NewReplacer("\r", " ", "\n", " ").Replace(e.Name)
		if isListKind(e.Kind) && !strings.HasSuffix(name, "/") {
			name += "/"
		}
		b.buf = append(b.buf, name...)
		b.buf = append(b.buf, '\n')
		if b.onEntry != nil {
			b.onEntry(e)
		}
	}
	if len(b.buf) > 0 {
		n := copy(p, b.buf)
		b.buf = b.buf[n:]
		return n, nil
	}
	return 0, b.err
}

func (b *entriesBody) Close() error { return b.l.Close() }

// pageBody is the Body Visit reads: it counts the bytes, tees them to the
// link extraction, enforces MaxBodySize, and tells a body closed before
// its end (skipped) from one read whole.
type pageBody struct {
	rc       io.ReadCloser
	n        int64
	size     int64 // the resource's size, or -1
	max      int64
	ex       *extraction
	eof      bool
	closed   bool // closed before its end
	tooLarge bool
}

func (b *pageBody) Read(p []byte) (int, error) {
	if b.tooLarge {
		return 0, ErrTooLarge
	}
	if b.closed {
		return 0, io.ErrClosedPipe
	}
	if b.max > 0 && int64(len(p)) > b.max-b.n+1 {
		p = p[:b.max-b.n+1]
	}
	n, err := b.rc.Read(p)
	if b.max > 0 && b.n+int64(n) > b.max {
		n = int(b.max - b.n)
		b.tooLarge = true
		err = ErrTooLarge
	}
	b.n += int64(n)
	b.ex.write(p[:n])
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *pageBody) Close() error {
	if !b.eof && !b.tooLarge && !(b.size >= 0 && b.n >= b.size) {
		b.closed = true
	}
	return b.rc.Close()
}

// declined reports whether the body was closed before its end, or cut
// at MaxBodySize.
func (b *pageBody) declined() bool { return b.closed || b.tooLarge }

// drain reads what Visit left and closes the body.
func (b *pageBody) drain() error {
	_, err := io.Copy(io.Discard, b)
	if cerr := b.rc.Close(); err == nil {
		err = cerr
	}
	return err
}

// finish ends a body read whole: its last links are queued.
func (b *pageBody) finish() { b.ex.finish() }

// abort ends a body not read whole.
func (b *pageBody) abort() { b.ex.abort() }

// isHTML reports whether a media type is HTML's.
func isHTML(mt string) bool {
	mt, _, _ = strings.Cut(mt, ";")
	switch strings.ToLower(strings.TrimSpace(mt)) {
	case "text/html", "application/xhtml+xml":
		return true
	}
	return false
}

// isListKind reports whether a resource of kind k names others.
func isListKind(k fetch.ResourceKind) bool {
	return k == fetch.ResourceDirectory || k == fetch.ResourceMenu || k == fetch.ResourceList
}

// listable reports whether a resource may name others: a directory, a
// menu, a list.
func listable(res *fetch.Resource) bool { return isListKind(res.Kind) }
