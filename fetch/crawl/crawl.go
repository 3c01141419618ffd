// Package crawl walks the links of gopher holes, FTP trees, small sites
// and any other scheme whose handler lists entries (fetch.Lister): from
// seeds, to a depth, inside a scope, each URL once, with robots.txt obeyed
// for http and https, on a fetch.Batch (its caps, per-host queues, rates
// and retries).
package crawl

import (
	"context"
	"errors"
	"io"
	"sync"

	"golang.org/x/time/rate"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Crawler crawls from seeds. Only Client is required; the zero values of
// the other fields are sane: seeds only (Depth 0), the seeds' hosts and
// schemes, robots.txt obeyed.
type Crawler struct {
	// Client fetches and lists. It must not be nil.
	Client *fetch.Client
	// Depth is how many links deep to follow from a seed: 0 fetches the
	// seeds only.
	Depth int
	// Scope says which links are followed.
	Scope Scope
	// Parallel, PerHost, Rate and Retry are the batch's (see fetch.Batch).
	Parallel int
	PerHost  int
	Rate     rate.Limit
	Retry    fetch.RetryPolicy
	// IgnoreRobots fetches what robots.txt disallows.
	IgnoreRobots bool
	// UserAgent is the name robots.txt rules are looked up under; ""
	// means "fetch".
	UserAgent string
	// Sink, when set, records every resource fetched (a WARC writer).
	Sink Sink
	// Visit is called for each URL fetched, concurrently, with the
	// resource's Body open, or with the failure. An error from Visit
	// stops the crawl, and Run returns it.
	Visit func(ctx context.Context, p *Page) error
}

// Sink records what a crawl fetches. Do fetches req with c, as c.Do does,
// and returns the resource with a Body that records it when closed; the
// *warc.Writer of package fetch/warc is one. The crawl reads every body to
// its end, so each is recorded whole.
type Sink interface {
	Do(ctx context.Context, c *fetch.Client, req *fetch.Request) (*fetch.Resource, error)
}

// Page is one URL of a crawl.
type Page struct {
	// URL is the URL fetched.
	URL *url.URL
	// Depth is how many links from a seed it was found (0 for a seed).
	Depth int
	// Referrer is the URL whose listing named it; nil for a seed.
	Referrer *url.URL
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
	Bytes      int64 // bytes of the bodies read
	Robots     int   // links robots.txt disallowed
	OutOfScope int   // links outside the scope (or the depth)
	Private    int   // links from a public page to a private address
	Skipped    int   // listing lines that could not be parsed
}

// item is a URL waiting for its turn.
type item struct {
	u        *url.URL
	depth    int
	referrer *url.URL
	public   bool // reached from a public address
}

// crawl is the state of one Run.
type crawl struct {
	c      *Crawler
	ctx    context.Context
	scope  *scope
	robots *Robots

	cancel   context.CancelCauseFunc
	mu       sync.Mutex
	cond     *sync.Cond
	stopErr  error // Visit's error, which stops the crawl
	queue    []*item
	inflight int
	stopped  bool
	seen     map[string]bool
	items    map[int]*item // by the batch's index
	stats    Stats
}

// Run crawls from seeds until every link in scope has been visited, Visit
// returns an error, or ctx ends. It returns what the crawl did.
func (c *Crawler) Run(ctx context.Context, seeds ...string) (Stats, error) {
	if c.Client == nil {
		return Stats{}, &fetch.Error{Op: "crawl", Kind: fetch.Usage, Err: errors.New("crawler without a Client")}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cr := &crawl{c: c, ctx: ctx, cancel: cancel, seen: map[string]bool{}, items: map[int]*item{}}
	cr.cond = sync.NewCond(&cr.mu)
	if !c.IgnoreRobots {
		cr.robots = &Robots{Client: c.Client, UserAgent: c.UserAgent}
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
		parsed = append(parsed, u)
	}
	cr.scope = newScope(c.Scope, parsed)
	for _, u := range parsed {
		if k := key(u); !cr.seen[k] {
			cr.seen[k] = true
			cr.queue = append(cr.queue, &item{u: u})
		}
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
		Rate:     c.Rate,
		Retry:    c.Retry,
		HostRate: cr.hostRate,
		Request:  cr.request,
		Do:       cr.do,
		// The crawl visits each URL once already; a URL given twice as a
		// seed is one.
		FetchDuplicates: true,
	}
	err := b.Run(ctx, cr.urls(bad), cr.result)
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.stopErr != nil {
		err = cr.stopErr
	}
	return cr.stats, err
}

// urls yields the crawl's URLs as they are found: first the seeds that
// did not parse (for the batch to report), then the queue, until it is
// empty with nothing in flight that could add to it.
func (cr *crawl) urls(bad []string) func(func(string) bool) {
	return func(yield func(string) bool) {
		i := 0
		for _, s := range bad {
			cr.mu.Lock()
			cr.items[i] = &item{}
			cr.inflight++
			cr.mu.Unlock()
			i++
			if !yield(s) {
				return
			}
		}
		for {
			cr.mu.Lock()
			for len(cr.queue) == 0 && cr.inflight > 0 && !cr.stopped {
				cr.cond.Wait()
			}
			if len(cr.queue) == 0 || cr.stopped {
				cr.mu.Unlock()
				return
			}
			it := cr.queue[0]
			cr.queue[0] = nil
			cr.queue = cr.queue[1:]
			cr.mu.Unlock()
			if !cr.admit(it) {
				continue
			}
			cr.mu.Lock()
			cr.items[i] = it
			cr.inflight++
			cr.mu.Unlock()
			i++
			if !yield(it.u.String()) {
				return
			}
		}
	}
}

// admit applies the check that may need the network: robots.txt. The hop
// rule (no link from a public page to a private address) is the Client's,
// judged at each dial on the address dialed (see request).
func (cr *crawl) admit(it *item) bool {
	if cr.robots != nil && !cr.robots.Allowed(cr.ctx, it.u) {
		cr.count(func(s *Stats) { s.Robots++ })
		return false
	}
	return true
}

func (cr *crawl) count(f func(*Stats)) {
	cr.mu.Lock()
	f(&cr.stats)
	cr.mu.Unlock()
}

// hostRate gives a host its robots.txt Crawl-delay as its rate.
func (cr *crawl) hostRate(k string) rate.Limit {
	if cr.robots == nil {
		return 0
	}
	u, err := url.Parse(k + "/")
	if err != nil {
		return 0
	}
	if d := cr.robots.CrawlDelay(u); d > 0 {
		return rate.Every(d)
	}
	return 0
}

// request builds the request for a URL of the crawl. Links to other hosts
// than their referrer's are hops: they get none of the Client's
// credentials.
func (cr *crawl) request(r *fetch.Result) (*fetch.Request, error) {
	cr.mu.Lock()
	it := cr.items[r.Index]
	cr.mu.Unlock()
	req := &fetch.Request{URL: r.URL}
	if it != nil && it.referrer != nil && it.referrer.HostPort() != r.URL.HostPort() {
		req.Hop = true
	}
	if it != nil {
		req.FromPublic = it.public // a link from a page a public address served
	}
	return req, nil
}

// result takes one outcome of the batch: it visits the page, records it,
// and queues its links.
func (cr *crawl) result(ctx context.Context, r *fetch.Result) error {
	cr.mu.Lock()
	it := cr.items[r.Index]
	cr.mu.Unlock()
	if it == nil || it.u == nil {
		it = &item{u: r.URL}
	}
	p := &Page{URL: r.URL, Depth: it.depth, Referrer: it.referrer, Err: r.Err}
	if r.Err != nil && it.public && errors.Is(r.Err, fetch.Refused) {
		// The Client refused to dial a private address for a link from
		// a public page: the hop rule, not a failure of the site's.
		cr.done(r.Index, nil, func(s *Stats) { s.Private++ })
		return nil
	}
	if r.Err != nil {
		cr.done(r.Index, nil, func(s *Stats) { s.Failed++ })
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
	it.public = it.public || res.FromPublic // its links lead from a public place
	cb := &countBody{rc: res.Body}
	res.Body = cb
	p.Resource = res
	if cr.c.Visit != nil {
		if err := cr.c.Visit(ctx, p); err != nil {
			res.Body.Close()
			cr.stop(err)
			return fetch.NoRetry(err)
		}
	}
	// The rest of the body is read, so the sink records it whole.
	_, err := io.Copy(io.Discard, res.Body)
	if cerr := res.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err // the attempt failed: the batch retries or reports it
	}
	var links []*item
	if it.depth < cr.c.Depth && listable(res) {
		links = cr.links(ctx, it, r.URL)
	}
	cr.done(r.Index, links, func(s *Stats) { s.Fetched++; s.Bytes += cb.n })
	return nil
}

// do fetches through the sink when there is one.
func (cr *crawl) do(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	if cr.c.Sink != nil {
		return cr.c.Sink.Do(ctx, cr.c.Client, req)
	}
	return cr.c.Client.Do(ctx, req)
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

// listable reports whether a resource may name others: a directory, a
// menu, a list, or an HTML page.
func listable(res *fetch.Resource) bool {
	switch res.Kind {
	case fetch.KindDirectory, fetch.KindMenu, fetch.KindList:
		return true
	}
	return isHTTP(res.URL) && (res.MediaType == "text/html" || len(res.MediaType) > 9 && res.MediaType[:10] == "text/html;")
}

// links lists u and returns the entries in scope not seen before.
func (cr *crawl) links(ctx context.Context, it *item, u *url.URL) []*item {
	req := &fetch.Request{URL: u, FromPublic: it.public}
	if it.referrer != nil && it.referrer.HostPort() != u.HostPort() {
		req.Hop = true
	}
	l, err := cr.c.Client.List(ctx, req)
	if err != nil {
		return nil // not a listing after all (or unreachable now): no links
	}
	defer l.Close()
	var out []*item
	outside := 0
	for {
		e, err := l.Next()
		if err != nil {
			break
		}
		if e.URL == nil {
			continue
		}
		if ok, _ := cr.scope.allows(e.URL); !ok {
			outside++
			continue
		}
		out = append(out, &item{u: e.URL, depth: it.depth + 1, referrer: u, public: it.public})
	}
	cr.count(func(s *Stats) { s.OutOfScope += outside; s.Skipped += l.Skipped() })
	return out
}

// done finishes URL i: its links join the queue (each URL once), and the
// URL no longer counts as in flight.
func (cr *crawl) done(i int, links []*item, f func(*Stats)) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	f(&cr.stats)
	delete(cr.items, i)
	for _, it := range links {
		if k := key(it.u); !cr.seen[k] {
			cr.seen[k] = true
			cr.queue = append(cr.queue, it)
		}
	}
	cr.inflight--
	cr.cond.Broadcast()
}

// countBody counts the bytes read through it.
type countBody struct {
	rc io.ReadCloser
	n  int64
}

func (b *countBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.n += int64(n)
	return n, err
}

func (b *countBody) Close() error { return b.rc.Close() }
