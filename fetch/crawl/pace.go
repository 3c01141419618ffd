package crawl

import (
	"context"
	"math/rand/v2"
	"time"

	"golang.org/x/time/rate"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// limiter returns the host's limiter, the one every request of the crawl
// to it waits on (the batch's, through fetch.Batch.Limiter, and the
// crawl's own: robots.txt). A host without a rate gets an unlimited one,
// which its Crawl-delay may slow later.
func (cr *crawl) limiter(key string) *rate.Limiter {
	cr.limMu.Lock()
	defer cr.limMu.Unlock()
	l := cr.limiters[key]
	if l == nil {
		r := cr.c.Rate
		if r == 0 {
			r = rate.Inf
		}
		l = rate.NewLimiter(r, 1)
		cr.limiters[key] = l
	}
	return l
}

// crawlDelay slows u's host to its robots.txt Crawl-delay, once its
// robots.txt is known, when that is slower than the Rate.
func (cr *crawl) crawlDelay(u *url.URL) {
	if cr.robots == nil {
		return
	}
	k := queueKey(u)
	cr.limMu.Lock()
	applied := cr.delayed[k]
	cr.delayed[k] = true
	cr.limMu.Unlock()
	if applied {
		return
	}
	if d := cr.robots.CrawlDelay(u); d > 0 {
		l := cr.limiter(k)
		if r := rate.Every(d); r < l.Limit() {
			l.SetLimit(r)
			cr.limMu.Lock()
			cr.intervals[k] = d
			cr.limMu.Unlock()
		}
	}
}

// randomWait, with RandomWait, sets the interval before the host's next
// turn at random between half and one and a half of its own (the Rate's,
// or the Crawl-delay): a request has just taken the turn it had.
func (cr *crawl) randomWait(u *url.URL) {
	if !cr.c.RandomWait || cr.c.Rate <= 0 || cr.c.Rate == rate.Inf {
		return
	}
	k := queueKey(u)
	cr.limMu.Lock()
	d, ok := cr.intervals[k]
	cr.limMu.Unlock()
	if !ok {
		d = time.Duration(float64(time.Second) / float64(cr.c.Rate))
	}
	cr.limiter(k).SetLimit(rate.Every(time.Duration(float64(d) * (0.5 + rand.Float64()))))
}

// paced makes a request of the crawl's own (robots.txt) as the batch
// makes its: after the host's turn under its limiter, through the sink,
// tried again as the Retry policy says. It returns the last failure.
func (cr *crawl) paced(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	lim := cr.limiter(queueKey(req.URL))
	for attempt := 1; ; attempt++ {
		if err := lim.Wait(ctx); err != nil {
			return nil, &fetch.Error{Op: "fetch", URL: req.URL.Redacted(), Kind: fetch.KindOf(ctx.Err()), Err: err}
		}
		var res *fetch.Resource
		var err error
		if cr.c.Sink != nil {
			res, err = cr.c.Sink.Do(ctx, cr.c.Client, req)
		} else {
			res, err = cr.c.Client.Do(ctx, req)
		}
		if err == nil {
			return res, nil
		}
		wait, again := cr.c.Retry.Wait(req, attempt, err)
		if !again {
			return nil, err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, err
		}
	}
}
