package fetch

import (
	"context"
	"errors"
	"iter"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"

	"github.com/rfc1738/fetch/url"
)

// Batch fetches many URLs concurrently: up to Parallel transfers at once,
// at most PerHost of them to one host, each host with a queue of its own so
// that a slow host never holds back the others. URLs are read from an
// iterator as the batch goes, no further ahead than a bounded window, so a
// batch of a million URLs needs no more memory than a batch of a thousand.
//
// Unlike a zero Client, a Batch parses leniently: its URLs are text from
// files and pages, not a programmer's constants. Set Strict to parse by the
// letter of RFC 1738.
//
// A Batch must not be copied or changed while Run is running.
type Batch struct {
	// Client fetches each URL. It must not be nil.
	Client *Client
	// Parallel caps the transfers in progress. Zero means 8.
	Parallel int
	// PerHost, when positive, lowers the Client's per-host cap
	// (Client.PerHost) for the batch's transfers: at most PerHost
	// connections' worth of transfers to one scheme://host:port, or the
	// Client's cap when that is lower. Zero means the Client's cap. Where
	// the scheme's handler pipelines (see Pipeliner), the cap is PerHost
	// times its Pipelining. The batch holds a host's URLs back in the
	// host's queue at its cap, so that no worker waits on the Client for
	// a slot while other hosts' URLs could go.
	PerHost int
	// Rate caps the requests started per second to one host; zero means
	// no cap. HostRate, when set, may give a host a rate of its own.
	Rate rate.Limit
	// HostRate returns the rate for the host key ("scheme://host:port")
	// when the batch first meets it; zero means Rate. A crawler uses it
	// for robots.txt's Crawl-delay.
	HostRate func(key string) rate.Limit
	// Limiter, when set, returns the limiter of the host key
	// ("scheme://host:port") in place of one made from Rate and HostRate,
	// so that a caller's own requests to the host (a crawler's
	// robots.txt) take their turns from the same one; a nil *rate.Limiter
	// means no limit. Every attempt takes a turn, retries included.
	Limiter func(key string) *rate.Limiter
	// Retry says which failures are tried again, and after how long. The
	// zero policy tries each URL once.
	Retry RetryPolicy
	// Strict parses URLs strictly by RFC 1738's BNF.
	Strict bool
	// FetchDuplicates fetches a URL again while an equal one (by its
	// normal form, url.URL.Normalize) is in flight. By default the later one waits for the
	// earlier and receives its outcome as a Shared Result.
	FetchDuplicates bool
	// Request returns the request for an attempt at r.URL; nil means
	// &Request{URL: r.URL}. It is called before every attempt (with
	// r.Attempt counting from 0), so it may set Offset to resume.
	Request func(r *Result) (*Request, error)
	// Do fetches one request; nil means Client.Do. A recorder goes here
	// (the fetch/warc Writer's Do, bound to the Client).
	Do func(ctx context.Context, req *Request) (*Resource, error)
	// AttemptTimeout bounds each attempt, from the dial to the callback's
	// return. Zero means no bound beyond the Client's timeouts.
	AttemptTimeout time.Duration
	// OnRetry, when set, is called before waiting to retry r after err.
	OnRetry func(r *Result, err error, wait time.Duration)
}

// Result is the outcome of one URL of a Batch, given to Run's callback.
type Result struct {
	// Index is the URL's position in the sequence, from 0.
	Index int
	// Input is the URL as the sequence gave it.
	Input string
	// URL is the parsed URL; nil when Input did not parse.
	URL *url.URL
	// Attempt counts the attempts made before this one, from 0.
	Attempt int
	// Resource is the fetched resource, its Body open; nil when Err is
	// set, and for a Shared result.
	Resource *Resource
	// Err is why the URL failed for good; nil on success.
	Err error
	// Shared reports that an equal URL was in flight: this result carries
	// its outcome (Err) without a Resource of its own.
	Shared bool
}

// noRetry marks an error its callback does not want retried.
type noRetry struct{ err error }

func (e noRetry) Error() string { return e.err.Error() }
func (e noRetry) Unwrap() error { return e.err }

// NoRetry returns err marked so that a Batch does not retry the attempt
// that returned it, whatever its Kind (say, because the bytes already
// delivered cannot be taken back). It keeps err's text and chain.
func NoRetry(err error) error {
	if err == nil {
		return nil
	}
	return noRetry{err}
}

// batchWindow bounds how many URLs a Batch reads ahead of those finished.
const batchWindow = 1024

// batchReadAhead is how many URLs read wait for the scheduler, part of
// the window: the reader does not hand each over in a rendezvous.
const batchReadAhead = 64

// Run fetches every URL of urls and calls fn for each, concurrently, from
// up to Parallel goroutines.
//
// For each attempt that yields a resource, fn is called with r.Resource
// open; Run closes the Body when fn returns. An error from fn fails the
// attempt. A failed attempt is retried as the Retry policy says (unless
// the error is marked by NoRetry); when a URL fails for good, fn is called
// once more with r.Err set and no Resource. (The policy never retries a
// request that sends a message: the peer may have taken it.) So for each URL, fn sees its
// success, or its final failure, exactly once.
//
// Run reads urls from a goroutine of its own and returns only once urls
// has returned; once the batch stops, the next yield returns false. (An
// iterator blocked in a read, say of a terminal, holds Run until the read
// ends.)
//
// If fn returns an error for a final failure, Run stops: it cancels the
// transfers in progress, reads no more URLs and returns that error. Run
// also stops when ctx is done, returning its cause. Otherwise it returns
// nil once every URL has been delivered.
func (b *Batch) Run(ctx context.Context, urls iter.Seq[string], fn func(ctx context.Context, r *Result) error) error {
	if b.Client == nil {
		return &Error{Op: "batch", Kind: Usage, Err: errors.New("batch without a Client")}
	}
	g, gctx := errgroup.WithContext(ctx)
	s := newScheduler(b, gctx, g, fn)
	in := make(chan *job, batchReadAhead)
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(in)
		i := 0
		for raw := range urls {
			j := newJob(i, raw)
			i++
			select {
			case in <- j:
			case <-stop:
				return
			}
		}
	}()
	err := s.loop(in)
	close(stop)
	<-readerDone
	if werr := g.Wait(); err == nil {
		err = werr
	}
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return err
}

// batchParser returns the parser the batch uses.
func (b *Batch) parser() url.Parser {
	p := b.Client.Parser
	p.Lenient = !b.Strict
	return p
}

func (b *Batch) parallel() int {
	if b.Parallel > 0 {
		return b.Parallel
	}
	return 8
}

// hostCap returns the transfers the batch lets run at once to the host of
// u, whose handler is h (nil when there is none): PerHost or the Client's
// per-host cap, whichever is lower, in connections' worth (transferCap).
// Zero means no cap.
func (b *Batch) hostCap(h Handler, u *url.URL) int {
	conns := b.Client.perHost()
	if b.PerHost > 0 && (conns == 0 || b.PerHost < conns) {
		conns = b.PerHost
	}
	return transferCap(conns, h, u)
}

// hostID is the queue a URL waits in: its scheme, host (lower-cased) and
// port, or its scheme alone for URLs without a host (news:, file:,
// mailto:). Its strings are the URL's own, so finding a URL's queue
// allocates nothing.
type hostID struct {
	scheme, host string
	port         int
}

func hostOf(u *url.URL) hostID {
	if u.Host == "" {
		return hostID{scheme: u.Scheme}
	}
	return hostID{u.Scheme, strings.ToLower(u.Host), u.EffectivePort()}
}

// hostKey is the name of a URL's queue, as HostRate is given it:
// "scheme://host:port", or "scheme:" for URLs without a host.
func hostKey(u *url.URL) string {
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Scheme + "://" + strings.ToLower(u.HostPort())
}

// dedupeKey is the identity under which equal URLs in flight are fetched
// once: the normal form (url.URL.Normalize).
func dedupeKey(u *url.URL) string { return u.Normalize().String() }
