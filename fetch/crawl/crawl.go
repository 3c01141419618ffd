// Package crawl walks the links of gopher holes, FTP trees, web sites and
// any other scheme whose handler lists entries: from seeds, to a depth,
// inside a scope, each URL once, with robots.txt (RFC 9309) obeyed for
// http and https, on a fetch.Batch (its caps, per-host queues, rates and
// retries).
//
// Each URL is fetched once: the links of a page come from the bytes the
// crawl fetched, read as they stream to Visit (an HTML page's elements; a
// menu or listing through the handler's fetch.BodyLister), or, for a
// directory a listing named, from the one fetch.Lister request that lists
// it. Every request of a crawl (pages, listings, robots.txt, retries)
// takes its turn under the same per-host rate and Crawl-delay.
package crawl

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Crawler crawls from seeds. Only Client is required; the zero values of
// the other fields are sane: seeds only (Depth 0), the seeds' hosts and
// schemes, robots.txt and nofollow obeyed, the frontier in memory.
type Crawler struct {
	// Client fetches and lists. It must not be nil.
	Client *fetch.Client
	// Depth is how many links deep to follow from a seed: 0 fetches the
	// seeds only.
	Depth int
	// Scope says which links are followed.
	Scope Scope
	// Parallel, PerHost and Retry are the batch's (see fetch.Batch).
	Parallel int
	PerHost  int
	Retry    fetch.RetryPolicy
	// Rate caps the requests per second to one host (zero: no cap); a
	// host's robots.txt Crawl-delay slows it further. Every request the
	// crawl makes to the host counts: pages, listings, robots.txt and
	// retries.
	Rate rate.Limit
	// RandomWait, with a Rate, spaces a host's requests at random
	// between half and one and a half of the Rate's interval (wget's
	// --random-wait) rather than evenly.
	RandomWait bool
	// IgnoreRobots fetches what robots.txt disallows.
	IgnoreRobots bool
	// Requisites also follows, one link beyond Depth, what the deepest
	// pages need to show: the links of img, link (but for rel=canonical,
	// alternate and next/prev), script, source, embed, object, audio,
	// video, track, iframe and frame elements, and CSS url()s (wget's
	// --page-requisites).
	Requisites bool
	// Sitemaps also follows the URLs of each http(s) host's sitemaps:
	// those its robots.txt names (Sitemap: lines), else /sitemap.xml;
	// sitemap indexes are followed, gzipped sitemaps read (wget2's
	// --follow-sitemaps). Their URLs are links of depth 1.
	Sitemaps bool
	// Stored, when set, tells the crawl of a copy of u kept from before
	// (a mirror's file): its modification time, sent as
	// If-Modified-Since, and open, which returns the copy as a resource.
	// A resource the server reports unchanged (Kind NotModified) is then
	// not visited; its links are read from the copy, and it is counted in
	// Stats.Unchanged. ok is false when there is no copy.
	Stored func(ctx context.Context, u *url.URL) (modified time.Time, open func() (*fetch.Resource, error), ok bool)
	// RobotsCache, when set, keeps hosts' robots.txt files beyond this
	// run, shared with other crawlers (see RobotsCache); nil keeps each
	// host's file for the run only.
	RobotsCache RobotsCache
	// UserAgent is the name robots.txt rules are looked up under; ""
	// means "fetch".
	UserAgent string
	// FollowNofollow follows the links of rel="nofollow" elements and of
	// pages whose <meta name="robots"> says nofollow; by default they
	// are not followed (and counted in Stats.Nofollow).
	FollowNofollow bool
	// MaxBodySize, when positive, skips a resource larger than it: one
	// whose size is known to be larger is not read, one that turns out
	// larger is cut there. A skipped resource is neither failed nor
	// retried (Stats.Skipped); its reader in Visit gets ErrTooLarge.
	MaxBodySize int64
	// FollowCanonical follows a page's <link rel=canonical> as any link.
	// By default it is not followed, and the URL it names is not fetched
	// when other pages link to it later: the page fetched is its copy
	// (Stats.Duplicates).
	FollowCanonical bool
	// Key returns the identity under which a URL is fetched once; nil
	// means its normal form (url.URL.Normalize). A crawler that knows
	// more (a session parameter to ignore, a case-insensitive server)
	// dedupes on its own key.
	Key func(u *url.URL) string
	// Follow, when set, sees each link in scope before it is queued, with
	// its referrer, depth, element and rel: it may change l.URL, add
	// others through add, and returns false to drop l.
	Follow func(ctx context.Context, l *Link, add func(Link)) bool
	// Frontier holds the links; nil means a new one in memory. A
	// persistent one (OpenDiskFrontier) lets a crawl stopped midway go on
	// when run again. Run does not close it.
	Frontier Frontier
	// Sink, when set, records every resource fetched (a WARC writer).
	Sink Sink
	// Visit is called for each URL fetched, concurrently, with the
	// resource's Body open, or with the failure. Closing the Body before
	// its end skips the resource (say, by its media type or size): it is
	// counted in Stats.Skipped, not failed, not retried, and its links
	// are not followed further. An error from Visit stops the crawl, and
	// Run returns it.
	Visit func(ctx context.Context, p *Page) error
	// Progress, when set, is called with the statistics so far each time
	// a URL is finished, one call at a time.
	Progress func(Stats)
	// Logger, when set, is told of what the crawl leaves out and why
	// (listings it cannot read, links it drops) at Debug and Warn; nil
	// logs nothing.
	Logger *slog.Logger
}

// ErrTooLarge is what reading a body larger than Crawler.MaxBodySize
// returns at the limit.
var ErrTooLarge = errors.New("crawl: body larger than MaxBodySize: skipped")

// Sink records what a crawl fetches. Do fetches req with c, as c.Do does,
// and returns the resource with a Body that records it when closed; the
// *warc.Writer of package fetch/warc is one. The crawl reads every body to
// its end, so each is recorded whole (but for those it skips).
type Sink interface {
	Do(ctx context.Context, c *fetch.Client, req *fetch.Request) (*fetch.Resource, error)
}

// Recorder is implemented by a Sink that also records what the crawl
// makes itself: a directory listed through the handler's fetch.Lister (an
// FTP directory, fetched by one LIST), rendered as text, one entry a
// line. Tee returns a body that records res as it is read, when it is
// closed; the *warc.Writer of package fetch/warc is one (a resource
// record).
type Recorder interface {
	Tee(req *fetch.Request, res *fetch.Resource) io.ReadCloser
}

// Page is one URL of a crawl.
type Page struct {
	// URL is the URL fetched.
	URL *url.URL
	// Depth is how many links from a seed it was found (0 for a seed).
	Depth int
	// Referrer is the URL whose listing named it; nil for a seed.
	Referrer *url.URL
	// Link is how the crawl met it.
	Link Link
	// Resource is the fetched resource, its Body open during Visit; nil
	// when Err is set.
	Resource *fetch.Resource
	// Err is why the URL could not be fetched.
	Err error
}

// Stats counts what a crawl did.
type Stats struct {
	Fetched    int   // URLs fetched
	Failed     int   // URLs that failed
	Skipped    int   // resources skipped: closed in Visit before their end, or over MaxBodySize
	Bytes      int64 // bytes of the bodies read
	Robots     int   // links robots.txt disallowed
	OutOfScope int   // links outside the scope (or the depth)
	Private    int   // links from a public page to a private address
	Local      int   // links to local files (file:) from a network resource
	Nofollow   int   // links not followed for rel=nofollow or a robots meta tag
	Dropped    int   // links the Follow hook dropped
	Unparsed   int   // links and listing lines that could not be parsed
	Unlisted   int   // listings whose links no handler could read (a handler without BodyLister or Lister)
	Unchanged  int   // resources a conditional fetch found unchanged since the last round (see Validators)
	Duplicates int   // links not fetched: a page fetched named them its canonical URL
}

// crawl is the state of one Run.
type crawl struct {
	c      *Crawler
	ctx    context.Context
	scope  *scope
	robots *Robots
	fr     Frontier

	cancel    context.CancelCauseFunc
	mu        sync.Mutex
	cond      *sync.Cond
	stopErr   error // Visit's error, which stops the crawl
	inflight  int
	stopped   bool
	items     map[int]*Link            // by the batch's index
	canonical *seenSet                 // keys pages fetched named their canonical URL (16 bytes each)
	reqs      map[*fetch.Request]*Link // requests made, for do
	stats     Stats
	limMu     sync.Mutex
	limiters  map[string]*rate.Limiter
	delayed   map[string]bool          // hosts whose Crawl-delay was applied
	intervals map[string]time.Duration // hosts' Crawl-delays, for RandomWait
}

// Run crawls from seeds until every link in scope has been visited, Visit
// returns an error, or ctx ends. It returns what the crawl did.
func (c *Crawler) Run(ctx context.Context, seeds ...string) (Stats, error) {
	if c.Client == nil {
		return Stats{}, &fetch.Error{Op: "crawl", Kind: fetch.Usage, Err: errors.New("crawler without a Client")}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cr := &crawl{c: c, ctx: ctx, cancel: cancel, fr: c.Frontier, items: map[int]*Link{}, canonical: newSeenSet(), reqs: map[*fetch.Request]*Link{},
		limiters: map[string]*rate.Limiter{}, delayed: map[string]bool{}, intervals: map[string]time.Duration{}}
	if cr.fr == nil {
		cr.fr = NewMemoryFrontier()
		defer cr.fr.Close()
	}
	cr.cond = sync.NewCond(&cr.mu)
	if !c.IgnoreRobots {
		cr.robots = &Robots{Client: c.Client, UserAgent: c.UserAgent, Do: cr.paced, Cache: c.RobotsCache}
	}
	p := c.Client.Parser
	p.Lenient = true
	var parsed []*url.URL
	var bad []string
	for _, s := range seeds {
		u, err := p.Parse(s)
		if err != nil {
			bad = append(bad, s) // the batch reports it
			continue
		}
		parsed = append(parsed, u.Normalize())
	}
	cr.scope = newScope(c.Scope, parsed)
	var links []Link
	for _, u := range parsed {
		links = append(links, Link{URL: u, Key: cr.key(u), Tag: "seed"})
	}
	if _, err := cr.fr.Add(ctx, links...); err != nil {
		return Stats{}, err
	}
	stop := context.AfterFunc(ctx, func() {
		cr.mu.Lock()
		cr.stopped = true
		cr.mu.Unlock()
		cr.cond.Broadcast()
	})
	defer stop()

	b := &fetch.Batch{
		Client:   c.Client,
		Parallel: c.Parallel,
		PerHost:  c.PerHost,
		Retry:    c.Retry,
		Limiter:  cr.limiter,
		Request:  cr.request,
		Do:       cr.do,
		// The frontier gives each URL once already.
		FetchDuplicates: true,
	}
	err := b.Run(ctx, cr.urls(bad), cr.result)
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.stopErr != nil {
		err = cr.stopErr
	}
	if fi, ok := cr.fr.(Finisher); ok && err == nil && ctx.Err() == nil && !cr.stopped {
		if _, more, ferr := cr.fr.Next(ctx); ferr == nil && !more {
			err = fi.Finish(ctx)
		}
	}
	return cr.stats, err
}

// key is the identity of u in the frontier.
func (cr *crawl) key(u *url.URL) string {
	if cr.c.Key != nil {
		return cr.c.Key(u)
	}
	return key(u)
}

// urls yields the crawl's URLs as they are found: first the seeds that
// did not parse (for the batch to report), then the frontier's, until it
// is empty with nothing in flight that could add to it.
func (cr *crawl) urls(bad []string) func(func(string) bool) {
	return func(yield func(string) bool) {
		i := 0
		for _, s := range bad {
			cr.mu.Lock()
			cr.items[i] = &Link{}
			cr.inflight++
			cr.mu.Unlock()
			i++
			if !yield(s) {
				return
			}
		}
		for {
			cr.mu.Lock()
			var l Link
			for {
				var ok bool
				var err error
				l, ok, err = cr.fr.Next(cr.ctx)
				if err != nil {
					cr.mu.Unlock()
					cr.stop(err)
					return
				}
				if ok {
					break
				}
				if cr.inflight == 0 || cr.stopped {
					cr.mu.Unlock()
					return
				}
				cr.cond.Wait()
			}
			dup := l.Depth > 0 && cr.canonical.has(hashKey(l.Key))
			cr.mu.Unlock()
			if dup {
				cr.fr.Done(cr.ctx, l.Key)
				cr.count(func(s *Stats) { s.Duplicates++ })
				continue
			}
			if !cr.admit(&l) {
				cr.fr.Done(cr.ctx, l.Key)
				continue
			}
			cr.mu.Lock()
			cr.items[i] = &l
			cr.inflight++
			cr.mu.Unlock()
			i++
			if !yield(l.URL.String()) {
				return
			}
		}
	}
}

// admit applies the check that may need the network: robots.txt. The hop
// rule (no link from a public page to a private address) is the Client's,
// judged at each dial on the address dialed (see request).
func (cr *crawl) admit(l *Link) bool {
	if cr.robots != nil && !cr.robots.Allowed(cr.ctx, l.URL) {
		cr.count(func(s *Stats) { s.Robots++ })
		return false
	}
	cr.crawlDelay(l.URL)
	cr.sitemaps(cr.ctx, l.URL, l.Public)
	return true
}

// unchanged follows the links of the stored copy of a resource the server
// reported unchanged.
func (cr *crawl) unchanged(ctx context.Context, l *Link) {
	if cr.c.Stored == nil || !cr.follows(l) {
		return
	}
	_, open, ok := cr.c.Stored(ctx, l.URL)
	if !ok {
		return
	}
	res, err := open()
	if err != nil {
		cr.logf(slog.LevelWarn, "the stored copy of an unchanged resource cannot be read", "url", l.URL.Redacted(), "err", err)
		return
	}
	body := &pageBody{rc: res.Body, size: res.Size, ex: cr.extract(ctx, l, res)}
	if err := body.drain(); err != nil {
		body.abort()
		return
	}
	body.finish()
}

func (cr *crawl) count(f func(*Stats)) {
	cr.mu.Lock()
	f(&cr.stats)
	cr.mu.Unlock()
}

// request builds the request for a URL of the crawl. Links to other hosts
// than their referrer's are hops: they get none of the Client's
// credentials.
func (cr *crawl) request(r *fetch.Result) (*fetch.Request, error) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	l := cr.items[r.Index]
	req := &fetch.Request{URL: r.URL}
	if l != nil && l.Referrer != nil && (l.Referrer.Host != r.URL.Host || l.Referrer.EffectivePort() != r.URL.EffectivePort()) { // their HostPorts differ
		req.Hop = true
	}
	if l != nil {
		req.FromPublic = l.Public // a link from a page a public address served
		cr.reqs[req] = l
		if cr.c.Stored != nil {
			if mod, _, ok := cr.c.Stored(cr.ctx, r.URL); ok {
				req.IfModifiedSince = mod
			}
		}
		if v, ok := cr.fr.(Validators); ok && l.Key != "" {
			etag, mod, err := v.Validators(cr.ctx, l.Key)
			if err != nil {
				return nil, err
			}
			req.IfModifiedSince = mod
			if etag != "" {
				req.Header = http.Header{"If-None-Match": {etag}}
			}
		}
	}
	return req, nil
}

// result takes one outcome of the batch: it visits the page, records it,
// and queues its links as they are read.
func (cr *crawl) result(ctx context.Context, r *fetch.Result) error {
	cr.mu.Lock()
	l := cr.items[r.Index]
	cr.mu.Unlock()
	if l == nil || l.URL == nil {
		l = &Link{URL: r.URL}
	}
	p := &Page{URL: r.URL, Depth: l.Depth, Referrer: l.Referrer, Link: *l, Err: r.Err}
	if r.Err != nil && l.Public && errors.Is(r.Err, fetch.Refused) {
		// The Client refused to dial a private address for a link from
		// a public page: the hop rule, not a failure of the site's.
		cr.done(r.Index, l, func(s *Stats) { s.Private++ })
		return nil
	}
	if r.Err != nil && errors.Is(r.Err, fetch.NotModified) {
		// Unchanged since the last round: nothing moved, nothing to
		// visit; the links of a stored copy are followed.
		cr.unchanged(ctx, l)
		cr.done(r.Index, l, func(s *Stats) { s.Unchanged++ })
		return nil
	}
	if r.Err != nil {
		cr.done(r.Index, l, func(s *Stats) { s.Failed++ })
		if err := cr.stopping(); err != nil {
			return err
		}
		if cr.c.Visit != nil {
			if err := cr.c.Visit(ctx, p); err != nil {
				cr.stop(err)
				return err
			}
		}
		return nil
	}
	res := r.Resource
	l.Public = l.Public || res.FromPublic // its links lead from a public place
	if m := cr.c.MaxBodySize; m > 0 && res.Size > m {
		res.Body.Close()
		cr.logf(slog.LevelDebug, "skipped: larger than MaxBodySize", "url", res.URL.Redacted(), "size", res.Size)
		cr.done(r.Index, l, func(s *Stats) { s.Skipped++ })
		return nil
	}
	var ex *extraction
	if cr.follows(l) {
		ex = cr.extract(ctx, l, res)
	}
	body := &pageBody{rc: res.Body, size: res.Size, max: cr.c.MaxBodySize, ex: ex}
	res.Body = body
	p.Resource = res
	if cr.c.Visit != nil {
		if err := cr.c.Visit(ctx, p); err != nil {
			body.abort()
			res.Body.Close()
			cr.stop(err)
			return fetch.NoRetry(err)
		}
	}
	if body.declined() {
		// Closed before its end, or cut at MaxBodySize: skipped.
		body.abort()
		cr.done(r.Index, l, func(s *Stats) { s.Skipped++; s.Bytes += body.n })
		return nil
	}
	// The rest of the body is read, so the sink records it whole and
	// every link in it is found.
	err := body.drain()
	if body.declined() {
		body.abort()
		cr.done(r.Index, l, func(s *Stats) { s.Skipped++; s.Bytes += body.n })
		return nil
	}
	if err != nil {
		body.abort()
		return err // the attempt failed: the batch retries or reports it
	}
	body.finish()
	if v, ok := cr.fr.(Validators); ok && l.Key != "" {
		if etag := res.Extra[fetch.ExtraETag]; etag != "" || !res.ModTime.IsZero() {
			if err := v.SetValidators(ctx, l.Key, etag, res.ModTime); err != nil {
				return fetch.NoRetry(err)
			}
		}
	}
	cr.done(r.Index, l, func(s *Stats) { s.Fetched++; s.Bytes += body.n })
	return nil
}

// do fetches through the sink when there is one, and lists the
// directories a listing named through the handler's Lister, once.
func (cr *crawl) do(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	cr.mu.Lock()
	l := cr.reqs[req]
	delete(cr.reqs, req)
	cr.mu.Unlock()
	cr.randomWait(req.URL)
	if l != nil && cr.listFirst(l) {
		res, err := cr.listAsResource(ctx, req)
		if err == nil || l.Listed {
			return cr.record(req, res), err
		}
		// A seed that is not a listing after all: fetched.
	}
	var res *fetch.Resource
	var err error
	if cr.c.Sink != nil {
		res, err = cr.c.Sink.Do(ctx, cr.c.Client, req)
	} else {
		res, err = cr.c.Client.Do(ctx, req)
	}
	if err != nil && l != nil && errors.Is(err, fetch.NotFound) {
		if r, ok := cr.symlinkedDir(ctx, req, l); ok {
			return r, nil
		}
	}
	return res, err
}

// symlinkedDir lists, as a directory, a file a listing named that cannot
// be retrieved: an FTP server lists a symbolic link to a directory as a
// link ("l"), which the listing takes for a file, and RETR then fails
// with 550. The directory's URL ends in "/".
func (cr *crawl) symlinkedDir(ctx context.Context, req *fetch.Request, l *Link) (*fetch.Resource, bool) {
	if !l.Listed || l.Kind != fetch.ResourceFile || !cr.listFirst(&Link{URL: l.URL, Listed: true, Kind: fetch.ResourceDirectory}) {
		return nil, false
	}
	s := req.URL.String()
	if strings.HasSuffix(s, "/") {
		return nil, false
	}
	u, err := url.Parse(s + "/")
	if err != nil {
		return nil, false
	}
	r := *req
	r.URL = u
	res, err := cr.listAsResource(ctx, &r)
	if err != nil {
		return nil, false
	}
	res = cr.record(&r, res)
	cr.logf(slog.LevelDebug, "listed as a directory: a file a listing named that could not be retrieved (a symbolic link)", "url", u.Redacted())
	return res, true
}

// stop ends the crawl with Visit's error.
func (cr *crawl) stop(err error) {
	cr.mu.Lock()
	if cr.stopErr == nil {
		cr.stopErr = err
	}
	cr.mu.Unlock()
	cr.cancel(err)
}

// stopping returns Visit's error once the crawl is stopping.
func (cr *crawl) stopping() error {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	return cr.stopErr
}

// done finishes URL i: it is done in the frontier, and no longer counts
// as in flight.
func (cr *crawl) done(i int, l *Link, f func(*Stats)) {
	if l.Key != "" {
		if err := cr.fr.Done(cr.ctx, l.Key); err != nil && cr.ctx.Err() == nil {
			cr.stop(err)
		}
	}
	cr.mu.Lock()
	f(&cr.stats)
	st := cr.stats
	delete(cr.items, i)
	cr.inflight--
	if cr.c.Progress != nil {
		cr.c.Progress(st)
	}
	cr.mu.Unlock()
	cr.cond.Broadcast()
}

func (cr *crawl) logf(level slog.Level, msg string, args ...any) {
	if cr.c.Logger != nil {
		cr.c.Logger.Log(cr.ctx, level, msg, args...)
	}
}
