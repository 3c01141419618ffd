package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfc1738/fetch/fetch/crawl"
)

// CrawlBucket is the key-value bucket that holds the fleet crawl's
// settings (the key "crawl").
const CrawlBucket = "FETCH_CRAWLS"

// Crawl is a fleet crawl's settings: what each worker gives its crawl
// engine (fetch/crawl), whose frontier is the queue's (Frontier). Every
// worker of the queue takes part in it.
type Crawl struct {
	// Seeds are the URLs the crawl starts from; they set its scope (the
	// seeds' hosts and schemes) as crawl.Crawler's seeds do.
	Seeds []string `json:"seeds"`
	// Depth is how many links deep to follow from a seed.
	Depth int `json:"depth"`
	// AnyHost, Schemes and Prefixes are the crawl.Scope's.
	AnyHost  bool     `json:"any_host,omitempty"`
	Schemes  []string `json:"schemes,omitempty"`
	Prefixes []string `json:"prefixes,omitempty"`
	// IgnoreRobots fetches what robots.txt disallows, and FollowNofollow
	// follows nofollow links (crawl.Crawler's).
	IgnoreRobots   bool `json:"ignore_robots,omitempty"`
	FollowNofollow bool `json:"follow_nofollow,omitempty"`
	// Requisites follows what the deepest pages need to show, one link
	// beyond Depth (crawl.Crawler's).
	Requisites bool `json:"requisites,omitempty"`
	// Generation tells the queue's crawls apart: StartCrawl sets it, one
	// more than the last crawl's when that one has ended (a new crawl,
	// with a seen set of its own), else the running crawl's. Zero is a
	// crawl started before generations (its links on subjects without
	// one).
	Generation int `json:"generation,omitempty"`
	// Started is when the crawl of this generation was started.
	Started time.Time `json:"started,omitzero"`
}

const crawlKey = "crawl"

// StartCrawl starts a fleet crawl, or extends the one running. While the
// last crawl has links queued or in flight (a crawl running, or stopped
// midway with every worker), it is extended: c's settings replace its
// settings, but for the seeds, which are added to its seeds, and its seen
// set stays, so a URL it crawled is not crawled again. Once it has ended
// (every link it queued done), c is a new crawl, of the next Generation,
// with a seen set of its own: its seeds and every page they lead to are
// crawled again, conditionally on what the worker's store holds of them
// (If-Modified-Since from a page's last record when its body is in the
// store; the links of a page the server reports unchanged are read from
// that body). The seen set of the crawl before the last is then
// removed. StartCrawl queues the seeds not crawled before in the crawl,
// and returns how many it queued; CurrentCrawl tells which crawl it is.
func (q *Queue) StartCrawl(ctx context.Context, c Crawl) (int, error) {
	var links []crawl.Link
	for _, s := range c.Seeds {
		u, err := parser.Parse(s)
		if err != nil {
			return 0, fmt.Errorf("queue: seed %q: %w", s, err)
		}
		u = u.Normalize()
		links = append(links, crawl.Link{URL: u, Key: u.String(), Tag: "seed"})
	}
	kv, err := q.bucket(ctx, jetstream.KeyValueConfig{
		Bucket:      CrawlBucket,
		Description: "the settings of the fleet crawl fetch workers take part in",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    q.replicas(),
	})
	if err != nil {
		return 0, err
	}
	if err := q.setupCrawl(ctx); err != nil {
		return 0, err
	}
	seeds := c.Seeds
	var renewed bool // a crawl ended, and c is the next
	for {
		// The settings are written with a compare-and-set on the
		// revision read, so that of two commands starting a crawl at
		// once one starts it and the other extends it.
		c.Seeds = seeds
		old, rev, ok, err := q.crawlEntry(ctx, kv)
		if err != nil {
			return 0, err
		}
		ended := true
		if ok {
			if ended, err = q.crawlEnded(ctx, old.Generation); err != nil {
				return 0, err
			}
		}
		if ended {
			c.Generation, c.Started = old.Generation+1, time.Now().UTC()
		} else {
			c.Generation, c.Started = old.Generation, old.Started
			for _, s := range old.Seeds {
				if !slices.Contains(c.Seeds, s) {
					c.Seeds = append(c.Seeds, s)
				}
			}
		}
		data, err := json.Marshal(c)
		if err != nil {
			return 0, err
		}
		if ok {
			_, err = kv.Update(ctx, crawlKey, data, rev)
		} else {
			_, err = kv.Create(ctx, crawlKey, data)
		}
		if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue // another command wrote them meanwhile
		}
		if err != nil {
			return 0, fmt.Errorf("queue: the crawl's settings: %w", err)
		}
		renewed = ended && ok
		break
	}
	f, err := q.OpenFrontier(ctx, FrontierOptions{})
	if err != nil {
		return 0, err
	}
	defer f.Close()
	f.advance(c.Generation)
	n, err := f.Add(ctx, links...)
	if err == nil && renewed && c.Generation >= 2 && safePurge(q.nc.ConnectedServerVersion()) {
		// A new crawl: the one before the last is forgotten. The last
		// one's seen set stays, so that a link a worker adds to it late
		// (one that had not seen this crawl start) is refused.
		if perr := q.purgeCrawl(ctx, c.Generation-2); perr != nil {
			err = fmt.Errorf("queue: crawl %d started, but %w", c.Generation, perr)
		}
	}
	return n, err
}

// CurrentCrawl returns the settings of the queue's fleet crawl, the last
// one started; ok is false when none was.
func (q *Queue) CurrentCrawl(ctx context.Context) (c Crawl, ok bool, err error) {
	return q.crawlSettings(ctx)
}

// crawlEntry returns the crawl's settings and their revision.
func (q *Queue) crawlEntry(ctx context.Context, kv jetstream.KeyValue) (c Crawl, rev uint64, ok bool, err error) {
	e, err := kv.Get(ctx, crawlKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return c, 0, false, nil
	}
	if err != nil {
		return c, 0, false, fmt.Errorf("queue: the crawl's settings: %w", err)
	}
	if err := json.Unmarshal(e.Value(), &c); err != nil {
		return c, 0, false, fmt.Errorf("queue: the crawl's settings: %w", err)
	}
	return c, e.Revision(), true, nil
}

// crawlEnded reports whether the crawl of generation gen has ended: it
// queued links, and no link of the queue's crawls is queued or in flight.
// A crawl whose seeds are not queued yet has not ended: it has just
// begun.
func (q *Queue) crawlEnded(ctx context.Context, gen int) (bool, error) {
	cons, err := q.js.OrderedConsumer(ctx, CrawlStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{genFilter(gen)}})
	if err != nil {
		return false, fmt.Errorf("queue: counting the crawl's links: %w", err)
	}
	ci, err := cons.Info(ctx)
	if err != nil {
		return false, fmt.Errorf("queue: counting the crawl's links: %w", err)
	}
	if ci.NumPending == 0 {
		return false, nil
	}
	c, err := q.js.Consumer(ctx, CrawlStream, CrawlConsumer)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		return false, nil // nothing taken yet
	}
	if err != nil {
		return false, fmt.Errorf("queue: %w", err)
	}
	ci, err = c.Info(ctx)
	if err != nil {
		return false, fmt.Errorf("queue: %w", err)
	}
	return ci.NumPending == 0 && ci.NumAckPending == 0, nil
}

// safePurge reports whether a server of version v ("2.9.10") purges the
// messages of one subject filter without moving the consumers past the
// others: from 2.11 on (as exclusiveCreate). On a 2.9.10 cluster a purge
// of the crawl before the last, matching nothing, left the new crawl's
// seed in the stream but never delivered (the consumer's pending count
// 0): TestQueueFleetRecrawlNginx.
func safePurge(v string) bool { return exclusiveCreate(v) }

// purgeCrawl removes the links of the crawl of generation gen from the
// stream: its seen set, kept for nothing now.
func (q *Queue) purgeCrawl(ctx context.Context, gen int) error {
	s, err := q.js.Stream(ctx, CrawlStream)
	if err == nil {
		err = s.Purge(ctx, jetstream.WithPurgeSubject(genFilter(gen)))
	}
	if err != nil {
		return fmt.Errorf("the links of crawl %d are left in %s: %w", gen, CrawlStream, err)
	}
	return nil
}

// crawlSettings returns the fleet crawl's settings; ok is false when no
// crawl was started.
func (q *Queue) crawlSettings(ctx context.Context) (c Crawl, ok bool, err error) {
	kv, err := q.js.KeyValue(ctx, CrawlBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("queue: bucket %s: %w", CrawlBucket, err)
	}
	e, err := kv.Get(ctx, crawlKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("queue: the crawl's settings: %w", err)
	}
	if err := json.Unmarshal(e.Value(), &c); err != nil {
		return c, false, fmt.Errorf("queue: the crawl's settings: %w", err)
	}
	return c, true, nil
}

// crawler is the crawl engine of c for a worker: its Client, slots and
// per-host cap, with fr as its frontier and robots.txt shared through
// robots.
func (c Crawl) crawler(r *run, fr *Frontier, robots *robotsCache, par, perHost int) *crawl.Crawler {
	return &crawl.Crawler{
		Client:         r.w.Client,
		Depth:          c.Depth,
		Scope:          crawl.Scope{AnyHost: c.AnyHost, Schemes: c.Schemes, Prefixes: c.Prefixes},
		Parallel:       par,
		PerHost:        perHost,
		Retry:          r.w.Retry,
		IgnoreRobots:   c.IgnoreRobots,
		FollowNofollow: c.FollowNofollow,
		Requisites:     c.Requisites,
		Frontier:       storeValidators{fr, r},
		RobotsCache:    robots,
		Sink:           &leaseSink{r: r},
		Stored:         r.stored,
		Visit:          r.visit(fr),
	}
}

// crawlStats counts the fleet crawl's frontier: nil when no crawl was
// started. Seen counts the links of the current crawl (its generation).
func (q *Queue) crawlStats(ctx context.Context) (*CrawlStats, error) {
	s, err := q.js.Stream(ctx, CrawlStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	st := &CrawlStats{Seen: s.CachedInfo().State.Msgs}
	if c, ok, err := q.crawlSettings(ctx); err != nil {
		return nil, err
	} else if ok {
		st.Generation = c.Generation
		oc, err := q.js.OrderedConsumer(ctx, CrawlStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{genFilter(c.Generation)}})
		if err != nil {
			return nil, fmt.Errorf("queue: counting the crawl's links: %w", err)
		}
		ci, err := oc.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("queue: counting the crawl's links: %w", err)
		}
		st.Seen = ci.NumPending
	}
	c, err := q.js.Consumer(ctx, CrawlStream, CrawlConsumer)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		st.Queued = st.Seen
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	ci := c.CachedInfo()
	st.Queued, st.InFlight = ci.NumPending, ci.NumAckPending
	return st, nil
}
