package queue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/crawl"
	"github.com/rfc1738/fetch/url"
)

// storeError is a failure of the local store: it stops a worker.
type storeError struct{ err error }

func (e *storeError) Error() string { return e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// crawl takes part in the fleet crawl, if one was started, until ctx is
// done or, when draining, until no link of it is left anywhere. It runs
// the crawl engine with the queue's Frontier again each time the crawl
// runs dry (a new crawl may be started, or links added). Only a failure
// of the store ends it with an error.
func (r *run) crawl(ctx context.Context, par, perHost int) error {
	var fr *Frontier
	var robots *robotsCache
	defer func() {
		if fr != nil {
			fr.Close()
		}
	}()
	var retry backoff
	pause := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	for ctx.Err() == nil {
		c, ok, err := r.w.Queue.crawlSettings(ctx)
		if err == nil && ok && robots == nil {
			robots, err = r.w.Queue.openRobots(ctx, r.id, r.logf)
		}
		if err == nil && ok && fr == nil {
			fr, err = r.w.Queue.OpenFrontier(ctx, FrontierOptions{Window: 2 * par, Logf: r.logf})
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			d := retry.next()
			r.logf("crawling: %v; again in %v", err, d.Round(time.Millisecond))
			pause(d)
			continue
		}
		retry = backoff{}
		if !ok {
			if r.w.Drain || !pause(2*time.Second) {
				return nil
			}
			continue
		}
		fr.advance(c.Generation)
		_, err = c.crawler(r, fr, robots, par, perHost).Run(ctx, c.Seeds...)
		var se *storeError
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.As(err, &se):
			return se.err
		case err != nil:
			d := retry.next()
			r.logf("crawling: %v; again in %v", err, d.Round(time.Millisecond))
			pause(d)
			continue
		case r.w.Drain:
			// The engine ran dry: the frontier found no link left
			// anywhere.
			return nil
		}
		pause(time.Second)
	}
	return nil
}

// visit stores each page of the crawl, as a job's result: the frontier's
// sequence of the link is the record's, so that a page crawled again
// after its worker died is stored once.
func (r *run) visit(fr *Frontier) func(ctx context.Context, p *crawl.Page) error {
	return func(ctx context.Context, p *crawl.Page) error {
		seq, delivered, ok := fr.takenLink(p.Link.Key)
		if !ok && p.Link.URL != nil {
			// A failed page is visited after its link is done: its
			// sequence is the message's, so that a failure in a later
			// crawl is recorded again, and once.
			seq = fr.doneSeq(ctx, p.Link)
		}
		raw := p.URL.String()
		key := Key(raw)
		rec := Record{URL: raw, Worker: r.id, Attempts: max(delivered, 1), Seq: seq, Crawl: true}
		if p.Err != nil {
			return r.commitPage(ctx, key, rec, nil, p.Err)
		}
		res := p.Resource
		rec.MediaType = res.MediaType
		if !res.ModTime.IsZero() {
			t := res.ModTime.UTC()
			rec.ModTime = &t
		}
		rec.ETag = res.Extra[fetch.ExtraETag]
		if err := fetch.LimitSize(res, r.w.MaxSize); err != nil {
			res.Body.Close()
			return r.commitPage(ctx, key, rec, nil, err)
		}
		sp, err := r.w.Store.create()
		if err != nil {
			return &storeError{err}
		}
		_, err = io.Copy(sp, res.Body)
		if err == nil && res.Size >= 0 && sp.n < res.Size {
			err = fetch.Errorf(fetch.Incomplete, "got %d of %d bytes", sp.n, res.Size)
		}
		if err != nil {
			// The crawl reads the same failure from the body: it tries
			// again, or visits the page with the failure.
			sp.discard()
			if fetch.KindOf(err) == fetch.TooLarge {
				res.Body.Close()
				return r.commitPage(ctx, key, rec, nil, err)
			}
			return nil
		}
		return r.commitPage(ctx, key, rec, sp, nil)
	}
}

// commitPage stores a page's record (and body), once, and publishes it.
func (r *run) commitPage(ctx context.Context, key string, rec Record, sp *spool, ferr error) error {
	if ferr != nil {
		rec.Status = r.status(ferr)
		rec.Kind = kindName(ferr)
		rec.Error = ferr.Error()
	} else {
		rec.Kind = "file"
		rec.Body = key
	}
	stored, err := r.w.Store.commit(key, &rec, sp)
	if err != nil {
		if sp != nil {
			sp.discard()
		}
		return &storeError{err}
	}
	// Published until it is, as a job's result is (a failure of the
	// queue loses no record); a worker stopped meanwhile leaves the page
	// in its store only, and says so.
	if err := r.publish(ctx, nil, key, rec); err != nil {
		r.logf("publishing the result of %s: %v; stopped, it is in the store only", redacted(rec.URL), err)
	}
	if stored {
		r.w.Metrics.record(rec)
		r.onResult(rec)
	}
	return nil
}

// stored tells the crawl of the copy of u this worker's store holds, for a
// crawl started again: the modification time of its last record, sent as
// If-Modified-Since (its entity tag goes as If-None-Match, through
// storeValidators), and the body, whose links the crawl follows when the
// server reports the page unchanged. A page whose last record failed, has
// neither validator or whose body is not in the store (another worker's
// store holds it) is fetched whole.
func (r *run) stored(ctx context.Context, u *url.URL) (time.Time, func() (*fetch.Resource, error), bool) {
	prev, path, ok := r.storedCopy(u.String())
	if !ok {
		return time.Time{}, nil, false
	}
	v := prev.validators()
	open := func() (*fetch.Resource, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		return &fetch.Resource{URL: u, Kind: fetch.ResourceFile, MediaType: prev.mediaType, Size: fi.Size(), ModTime: v.since, Body: f}, nil
	}
	return v.since, open, true
}

// storedCopy returns the last record of rawURL in this worker's store and
// the path of its body, when the record is a success with a validator and
// the body is there.
func (r *run) storedCopy(rawURL string) (seenJob, string, bool) {
	key := Key(rawURL)
	prev, ok, err := r.w.Store.last(key)
	if err != nil || !ok || prev.status != 0 || prev.modTime == nil && prev.etag == "" {
		return seenJob{}, "", false
	}
	path := filepath.Join(r.w.Store.Dir(), key)
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return seenJob{}, "", false
	}
	return prev, path, true
}

// storeValidators is the fleet crawl's frontier as the crawl engine sees
// it: the queue's Frontier, whose links the fleet shares, with the
// validators of each page taken from this worker's store
// (crawl.Validators), so that a crawl started again sends a page's entity
// tag as well as its modification time. The key is the link's normalized
// URL, the engine's default key, which the fleet crawl keeps. What a fetch
// learns is kept by the page's record, so SetValidators keeps nothing.
type storeValidators struct {
	*Frontier
	r *run
}

// Validators returns the entity tag and modification time of key's last
// record in the worker's store, when its body is there too.
func (f storeValidators) Validators(ctx context.Context, key string) (string, time.Time, error) {
	prev, _, ok := f.r.storedCopy(key)
	if !ok {
		return "", time.Time{}, nil
	}
	v := prev.validators()
	return v.etag, v.since, nil
}

// SetValidators keeps nothing: the page's record holds them.
func (storeValidators) SetValidators(context.Context, string, string, time.Time) error { return nil }

var _ crawl.Validators = storeValidators{}

// leaseSink fetches each request of the crawl holding a per-host lease,
// as a job's fetch does, so that --per-host holds across the fleet for
// crawls too, and keeps it for the host's next page as a job's is kept
// (see leases.park). Waiting for a slot here costs no delivery of the link: the
// frontier holds it, telling the server it is in progress.
type leaseSink struct{ r *run }

func (s *leaseSink) Do(ctx context.Context, c *fetch.Client, req *fetch.Request) (*fetch.Resource, error) {
	do := s.r.w.Do
	if do == nil {
		do = c.Do
	}
	addr := s.r.address(req.URL)
	if addr == "" {
		return do(ctx, req)
	}
	// The slot the host's last page left parked, else one taken.
	held := s.r.leases.unpark(ctx, addr)
	if held == nil {
		var err error
		if held, err = s.r.slot(ctx, addr, true); err != nil {
			return nil, fmt.Errorf("queue: waiting for a slot to %s: %w", addr, err)
		}
	}
	kctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	go held.keep(kctx, nil)
	free := sync.OnceFunc(func() {
		stop()
		// Parked for the host's next page (what is parked longer than
		// linger is freed, closing the idle connections to the host).
		if ctx.Err() != nil || !s.r.leases.park(addr, held) {
			s.r.free(addr, held)
		}
	})
	res, err := do(ctx, req)
	if err != nil {
		free()
		return nil, err
	}
	res.Body = &leasedBody{ReadCloser: res.Body, free: free}
	return res, nil
}

// leasedBody frees its lease when closed.
type leasedBody struct {
	io.ReadCloser
	free func()
}

func (b *leasedBody) Close() error {
	err := b.ReadCloser.Close()
	b.free()
	return err
}
