package crawl

import (
	"context"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Link is a URL a crawl found: a seed, an element of a page, an entry of
// a listing.
type Link struct {
	// URL is the link, resolved; the crawl fetches its normal form.
	URL *url.URL
	// Key is the identity under which the crawl fetches it once (the
	// Crawler's Key, by default the normal form). The crawl sets it.
	Key string
	// Referrer is the page or listing that named it; nil for a seed.
	Referrer *url.URL
	// Depth is how many links from a seed it was found (0 for a seed).
	Depth int
	// Tag is what named it: the HTML element ("a", "img", "link",
	// "form", "meta" for a refresh, "css" for a url() in CSS), "entry"
	// for a listing's entry, "seed" for a seed.
	Tag string
	// Rel is the element's rel attribute, lower case, space-separated
	// ("nofollow", "stylesheet", "canonical").
	Rel string
	// Kind is what the referrer's listing says fetching URL returns, when
	// Listed.
	Kind fetch.ResourceKind
	// Listed reports that Kind comes from a listing entry.
	Listed bool
	// Public reports that the referrer was served from a public address
	// (the hop rule: the Client then refuses to dial a private one for
	// it; see fetch.Request.FromPublic).
	Public bool
}

// HasRel reports whether l's rel attribute holds the keyword v.
func (l *Link) HasRel(v string) bool {
	for _, w := range strings.Fields(l.Rel) {
		if w == v {
			return true
		}
	}
	return false
}

// A Frontier holds a crawl's links: which keys were ever added (each is
// fetched once), which wait for their turn, and which were taken and not
// yet done. The crawl adds links as it finds them, takes them with Next,
// and calls Done once each is fetched or failed for good.
//
// Next takes hosts in turn (scheme, host and port), so that one large
// host does not fill the crawl's window while others wait. A persistent
// Frontier keeps its state across runs: a link taken and not done when
// the process ended is returned by Next again when the frontier is opened
// again, and a key added in an earlier run is not added again.
//
// Implementations must be safe for concurrent use. This package has one
// in memory (NewMemoryFrontier) and one on disk (OpenDiskFrontier);
// fetch/crawl/frontiertest checks any other.
type Frontier interface {
	// Add queues the links whose Key was never added, and reports how
	// many were new.
	Add(ctx context.Context, links ...Link) (int, error)
	// Next takes the next waiting link; ok is false when none waits
	// (some may still be taken and not done).
	Next(ctx context.Context) (l Link, ok bool, err error)
	// Done records that the link of key, taken by Next, is finished.
	Done(ctx context.Context, key string) error
	// Close releases the frontier.
	Close() error
}

// queueKey is the host a link waits under: "scheme://host:port", or
// "scheme:" without a host.
func queueKey(u *url.URL) string {
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Scheme + "://" + strings.ToLower(u.HostPort())
}

// Finisher is implemented by frontiers that keep their state across runs:
// Run calls Finish when the crawl has run to its end (every link done, not
// stopped), and the frontier, opened again, starts a new round over every
// key it knows.
type Finisher interface {
	Finish(ctx context.Context) error
}

// Validators is implemented by frontiers that keep what a crawl learnt of
// each resource, so that a later round fetches it conditionally: Run sends
// the stored entity tag as If-None-Match and the modification time as
// If-Modified-Since, and stores those of every resource it fetches. A
// resource the server reports unchanged (Kind NotModified) moves no body,
// is counted in Stats.Unchanged and is not visited.
type Validators interface {
	// Validators returns what was stored for key: "" and the zero Time
	// when nothing was.
	Validators(ctx context.Context, key string) (etag string, modified time.Time, err error)
	// SetValidators stores them for key.
	SetValidators(ctx context.Context, key, etag string, modified time.Time) error
}
