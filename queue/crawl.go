package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

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
}

const crawlKey = "crawl"

// StartCrawl starts a fleet crawl, or extends the one started: its
// settings replace the last ones, but for the seeds, which are added to
// theirs. The seeds not crawled before are queued; it returns how many
// were.
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
	kv, err := q.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      CrawlBucket,
		Description: "the settings of the fleet crawl fetch workers take part in",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    q.kvReplicas(ctx, CrawlBucket, q.replicas()),
	})
	if err != nil {
		return 0, fmt.Errorf("queue: bucket %s: %w", CrawlBucket, err)
	}
	if old, ok, err := q.crawlSettings(ctx); err != nil {
		return 0, err
	} else if ok {
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
	if _, err := kv.Put(ctx, crawlKey, data); err != nil {
		return 0, fmt.Errorf("queue: the crawl's settings: %w", err)
	}
	f, err := q.OpenFrontier(ctx, FrontierOptions{})
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.Add(ctx, links...)
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
		Frontier:       fr,
		RobotsCache:    robots,
		Sink:           &leaseSink{r: r},
		Visit:          r.visit(fr),
	}
}

// crawlStats counts the fleet crawl's frontier: nil when no crawl was
// started.
func (q *Queue) crawlStats(ctx context.Context) (*CrawlStats, error) {
	s, err := q.js.Stream(ctx, CrawlStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	st := &CrawlStats{Seen: s.CachedInfo().State.Msgs}
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
