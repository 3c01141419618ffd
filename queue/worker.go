package queue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Worker takes jobs from a Queue, fetches them with Client and stores the
// results in Store. A job is acknowledged only after its result is stored;
// a transient failure is handed back with a growing delay until the job's
// last delivery, and a permanent one (or the last) is recorded as failed.
// A batch of jobs (see Options.Batch) is taken whole: its transient
// failures are tried again by the worker that holds it, and it is
// acknowledged once every job's record is stored.
type Worker struct {
	Queue  *Queue
	Client *fetch.Client
	Store  *Store
	// ID names the worker in results.jsonl. Empty means "host:pid".
	ID string
	// Parallel is the number of jobs fetched at once. Zero means 4.
	Parallel int
	// PerHost caps the connections to one host:port across every worker
	// of the queue (each worker must use the same value). Zero means 2.
	PerHost int
	// MaxTime bounds each fetch when the job does not. Zero means none
	// beyond the Client's own timeouts.
	MaxTime time.Duration
	// MaxSize bounds the bytes of a body stored; a job whose resource is
	// larger (said up front, or found while reading) fails with
	// fetch.TooLarge (fetch.LimitSize) and is not retried. Zero means no
	// bound.
	MaxSize int64
	// Status maps a fetch's outcome to the status stored (its exit-code
	// class): nil means 0 for success and 1 for any failure.
	Status func(err error) int
	// Retry decides which failures are handed back for another delivery,
	// and after how long. Its zero value retries the transient failures
	// (fetch.Transient) until the job's last delivery, waiting from one
	// second, doubled each time, up to ten minutes, a server's
	// Retry-After honoured.
	Retry fetch.RetryPolicy
	// Do fetches one request; nil means Client.Do. A recorder goes here
	// (warc.Writer.Do, say), in the shape of fetch.Batch's.
	Do func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error)
	// Drain makes Run return once the queue has no job left, queued or in
	// flight anywhere, instead of waiting for more.
	Drain bool
	// OnResult, if set, is called with each record stored, one call at
	// a time (never concurrently, though the jobs are fetched at once).
	OnResult func(Record)
	// Metrics, if set, counts what the worker does.
	Metrics *Metrics
	// Logf, if set, is told of each failure of the queue that the worker
	// goes on after (a server or leader lost, a result not published):
	// the worker never stops for one, it tries again.
	Logf func(format string, args ...any)
}

// Run processes jobs until ctx is done, or, with Drain, until the queue is
// empty. It returns nil when stopped by ctx or by draining.
//
// Beside the jobs, the worker takes part in the fleet crawl started by
// Queue.StartCrawl, if any: it runs the crawl engine (fetch/crawl) with the
// queue's Frontier, Parallel pages at once (on top of the Parallel jobs),
// each fetch holding a per-host lease as a job's does, and stores each
// page as a job's result (Record.Crawl set). With Drain it returns once
// neither jobs nor links are left.
func (w *Worker) Run(ctx context.Context) error {
	if w.Queue == nil || w.Client == nil || w.Store == nil {
		return errors.New("queue: a Worker needs a Queue, a Client and a Store")
	}
	id := w.ID
	if id == "" {
		h, _ := os.Hostname()
		id = fmt.Sprintf("%s:%d", h, os.Getpid())
	}
	per := w.PerHost
	if per <= 0 {
		per = 2
	}
	r := &run{w: w, id: id, leases: &leases{kv: w.Queue.hosts, owner: id, perHost: per, ttl: w.Queue.opts.leaseTTL()}}
	par := w.Parallel
	if par <= 0 {
		par = 4
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// Each free slot is a token in idle: the jobs are pulled a batch at a
	// time, never more than the slots free, so none waits in a client
	// buffer where a slow or reconnecting worker could drop it.
	idle := make(chan struct{}, par)
	freed := make(chan struct{}, 1)
	r.idle, r.freed = idle, freed
	msgs := make(chan *delivery)
	var wg sync.WaitGroup
	for range par {
		idle <- struct{}{}
		wg.Go(func() {
			for d := range msgs {
				if err := r.handle(ctx, d); err != nil {
					cancel(err)
				}
				r.freeSlot()
			}
		})
	}
	if w.Metrics != nil {
		stop := make(chan struct{})
		defer func() {
			close(stop)
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			w.Queue.publishMetrics(pctx, id, w.Metrics.Snapshot())
		}()
		go r.publishMetrics(ctx, stop)
	}
	crawled := make(chan error, 1)
	go func() {
		err := r.crawl(ctx, par, per)
		if err != nil {
			cancel(err)
		}
		crawled <- err
	}()
	err := r.take(ctx, idle, freed, msgs)
	close(msgs)
	wg.Wait()
	// The slots parked by the last jobs (and pages), freed at once: a
	// write each.
	freeParked := func() {
		var freeing sync.WaitGroup
		r.leases.reap(nil, func(hp string, s *lease) { freeing.Go(func() { r.free(hp, s) }) })
		freeing.Wait()
	}
	freeParked()
	// While the fleet crawl goes on, the slots its pages park are freed
	// when due, as the loop taking jobs did.
	stopReaping, reaped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(reaped)
		for {
			next := r.leases.reap(func(string) bool { return false }, r.free)
			if next == 0 {
				next = linger
			}
			select {
			case <-stopReaping:
				return
			case <-time.After(next):
			}
		}
	}()
	if err == nil || errors.Is(err, errDrained) {
		// Draining, the worker waits for the fleet crawl to run dry
		// too; a failure of the store there stops it.
		if cerr := <-crawled; cerr != nil {
			err = cerr
		}
	} else {
		cancel(err)
		<-crawled
	}
	close(stopReaping)
	<-reaped
	freeParked() // those the last pages parked
	if err == nil {
		err = context.Cause(ctx)
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, errDrained) {
		return err
	}
	return nil
}

var errDrained = errors.New("queue drained")

// run is the state of one Worker.Run.
type run struct {
	w       *Worker
	id      string
	leases  *leases
	idle    chan struct{} // a token per free fetch slot (see Run)
	backlog atomic.Bool   // the last pull filled every free slot: more may be queued
	freed   chan struct{} // told when a slot frees

	resultMu sync.Mutex // serializes the calls of w.OnResult
}

// freeSlot gives a fetch slot back, and tells the dispatcher.
func (r *run) freeSlot() {
	r.idle <- struct{}{}
	select {
	case r.freed <- struct{}{}:
	default:
	}
}

// backoff is the delay between tries after a failure of the queue: from
// 100 ms, doubled each time up to 5 s, with jitter.
type backoff struct{ failures int }

func (b *backoff) next() time.Duration {
	b.failures++
	d := min(100*time.Millisecond<<min(b.failures-1, 6), 5*time.Second)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// publishMetrics publishes the worker's counts every 5 seconds until stop
// is closed.
func (r *run) publishMetrics(ctx context.Context, stop <-chan struct{}) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			if err := r.w.Queue.publishMetrics(ctx, r.id, r.w.Metrics.Snapshot()); err != nil && ctx.Err() == nil {
				r.logf("publishing the worker's counts: %v", err)
			}
		}
	}
}

// logf reports a failure of the queue that the run goes on after.
func (r *run) logf(format string, args ...any) {
	r.w.Metrics.add(func(s *MetricsSnapshot) { s.QueueErrors++ })
	if r.w.Logf != nil {
		r.w.Logf(format, args...)
	}
}

// empty reports whether no job is left, queued or delivered anywhere, by
// the consumer's counts: jobs not yet delivered, and delivered but not
// acknowledged. (The stream's count of messages is not that: after a
// leader fails over, it can keep acknowledged jobs for a while.)
func (r *run) empty(ctx context.Context) bool {
	ci, err := r.w.Queue.consumer().Info(ctx)
	return err == nil && ci.NumPending == 0 && ci.NumAckPending == 0
}

// handle processes one delivery of a job. Only a failure of the store is
// returned; a failed fetch is the job's outcome, and a failure of the
// queue is logged and the job left to be delivered again.
func (r *run) handle(ctx context.Context, d *delivery) error {
	msg := d.msg
	if d.lease != nil {
		defer r.release(ctx, d)
	}
	if d.jobErr != nil {
		// Not a job: nothing to fetch or to retry.
		r.logf("terminating job %d: %v", d.seq, d.jobErr)
		msg.Term()
		return nil
	}
	if d.batch != nil {
		return r.handleBatch(ctx, d)
	}
	job := d.job
	// Deliveries handed back for want of a host slot are no tries.
	delivery := d.attempts()
	last := delivery >= r.w.Queue.opts.maxDeliver()
	key := Key(job.URL)
	rec := Record{URL: job.URL, Worker: r.id, Attempts: delivery, Waits: d.waits, Seq: d.seq}
	prev, known, err := r.w.Store.last(key)
	if err != nil {
		msg.Nak()
		return err
	}
	if known && prev.seq == rec.Seq && !prev.crawl {
		// Delivered again after it was stored (its worker died before
		// the acknowledgement arrived): nothing to fetch, the record is
		// published again (once in the stream, by its message id).
		rec.Status, rec.Kind, rec.ModTime, rec.ETag = prev.status, prev.kind, prev.modTime, prev.etag
		return r.finish(ctx, d, key, rec, nil, nil)
	}
	if delivery > r.w.Queue.opts.maxDeliver() {
		// Taken more often than MaxDeliver without an outcome: its
		// workers died or stopped with it each time.
		return r.finish(ctx, d, key, rec, nil, fetch.Errorf(fetch.Incomplete, "delivered %d times without an outcome (at most %d)", delivery, r.w.Queue.opts.maxDeliver()))
	}
	var cond validators
	if known {
		// A URL fetched before, enqueued again: a recrawl, conditional
		// on the validators its record holds.
		cond = prev.validators()
	}

	u := d.u
	if u == nil {
		_, perr := parser.Parse(job.URL)
		// The parser's error holds the input with any password hidden.
		shown := "a malformed URL"
		var ue *url.Error
		if errors.As(perr, &ue) {
			shown = ue.Input
		}
		return r.finish(ctx, d, key, rec, nil, &fetch.Error{Op: "fetch", URL: shown, Kind: fetch.Malformed, Err: perr})
	}
	if len(u.Host) > maxHost {
		return r.finish(ctx, d, key, rec, nil, fetch.Errorf(fetch.Malformed, "a host of %d bytes (at most %d)", len(u.Host), maxHost))
	}
	// A delivery after the first claims the job: an earlier one (a
	// worker paused past AckWait) can no longer commit it.
	d.commit = true
	if d.delivered > 1 {
		if d.claim, err = r.w.Queue.claim(ctx, key, d.seq, r.id); err != nil {
			// A failure of the queue spends no try: the job goes back
			// counted as a wait.
			if !errors.Is(err, errCommitted) {
				r.logf("%v; the job goes back to the queue", err)
			}
			r.handBack(context.WithoutCancel(ctx), d, time.Second)
			return nil
		}
	}
	// The job is ours while we work on it: keep telling JetStream so, so
	// that AckWait bounds only the time to notice a dead worker.
	busy, stopBusy := context.WithCancelCause(ctx)
	defer stopBusy(nil)
	go heartbeat(busy, msg, r.w.Queue.opts.ackWait()/3)
	if d.lease != nil {
		// A lease lost (this worker was paused past its TTL and another
		// took the slot) ends the fetch at once.
		go d.lease.keep(busy, func(err error) { stopBusy(err) })
	}

	fctx := busy
	maxTime := job.MaxTime
	if maxTime == 0 {
		maxTime = r.w.MaxTime
	}
	if maxTime > 0 {
		var cancel context.CancelFunc
		fctx, cancel = context.WithTimeout(busy, maxTime)
		defer cancel()
	}
	sp, ferr := r.fetch(fctx, u, job, cond, &rec)
	if ferr != nil && ctx.Err() != nil {
		// Stopping: hand the job back at once for another worker.
		msg.Nak()
		return nil
	}
	if ferr != nil && errors.Is(context.Cause(busy), errLeaseLost) {
		// No try of the job's: it goes back counted as a wait.
		r.logf("%s: %v; the job goes back to the queue", redacted(job.URL), context.Cause(busy))
		r.handBack(context.WithoutCancel(ctx), d, time.Second)
		return nil
	}
	if ferr != nil && !last {
		if delay, ok := r.retry().Wait(nil, delivery, ferr); ok {
			r.w.Metrics.add(func(s *MetricsSnapshot) { s.Retried++ })
			msg.NakWithDelay(delay)
			return nil
		}
	}
	if fetch.KindOf(ferr) == fetch.NotModified && ferr != nil {
		// Unchanged since the last crawl: the body stored then stays.
		rec.ModTime, rec.ETag = prev.modTime, prev.etag
		rec.Kind = kindName(ferr)
		rec.Body = key
		return r.finish(ctx, d, key, rec, nil, nil)
	}
	return r.finish(ctx, d, key, rec, sp, ferr)
}

// release hands d's host slot on to the next job of its host that waits
// in this worker (see leases.park), or frees it when none is to (the
// worker stopping, the lease lost).
func (r *run) release(ctx context.Context, d *delivery) {
	if ctx.Err() == nil && r.leases.park(d.addr, d.lease) {
		return
	}
	r.free(d.addr, d.lease)
}

// free frees the host slot s of hostport, closing first the Client's
// idle connections to the host, so that the connections this worker
// keeps open to a host stay within the slots it holds: --per-host across
// the fleet bounds idle connections too.
func (r *run) free(hostport string, s *lease) {
	r.w.Client.CloseIdle(hostport)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.release(ctx)
}

// address is the host:port a fetch of u connects to, for its lease: the
// URL's, or for URLs without a host (news:) the server its handler names
// (fetch.Addresser); "" when there is none (file:).
func (r *run) address(u *url.URL) string {
	if u.Host != "" {
		return u.HostPort()
	}
	if h, ok := r.w.Client.Handler(u.Scheme); ok {
		if a, ok := h.(fetch.Addresser); ok {
			return a.Address(&fetch.Request{URL: u})
		}
	}
	return ""
}

// slot takes a lease on hostport, waiting a little for one to free; on the
// job's last delivery it waits as long as it takes, so that politeness
// never costs a job. A failure of the queue is logged and tried again
// until ctx is done.
func (r *run) slot(ctx context.Context, hostport string, last bool) (*lease, error) {
	wait := 20 * time.Millisecond
	start := time.Now()
	deadline := start.Add(time.Second)
	var retry backoff
	for waited := false; ; waited = true {
		l, err := r.leases.acquire(ctx, hostport)
		if err != nil && !errors.Is(err, errNoSlot) && ctx.Err() == nil {
			d := retry.next()
			r.logf("%v; again in %v", err, d.Round(time.Millisecond))
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(d):
			}
			// The time the queue was away is no wait for a slot.
			deadline = time.Now().Add(time.Second)
			continue
		}
		if !errors.Is(err, errNoSlot) {
			if waited {
				r.w.Metrics.leaseWait(time.Since(start))
			}
			return l, err
		}
		if !last && time.Now().After(deadline) {
			return nil, errNoSlot
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait + time.Duration(rand.Int64N(int64(wait)))):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// validators are what a recrawl of a URL is conditional on: the
// modification time (If-Modified-Since) and the entity tag
// (If-None-Match) of its last record.
type validators struct {
	since time.Time
	etag  string
}

// validators returns the validators of a URL's last record: none when it
// failed.
func (p seenJob) validators() validators {
	if p.status != 0 {
		return validators{}
	}
	v := validators{etag: p.etag}
	if p.modTime != nil {
		v.since = *p.modTime
	}
	return v
}

// fetch fetches u into a body spooled in the store, conditionally on cond
// when it holds validators.
func (r *run) fetch(ctx context.Context, u *url.URL, job Job, cond validators, rec *Record) (*spool, error) {
	req := &fetch.Request{URL: u, ConnectTimeout: job.ConnectTimeout, IfModifiedSince: cond.since}
	if cond.etag != "" {
		req.Header = http.Header{"If-None-Match": {cond.etag}}
	}
	do := r.w.Do
	if do == nil {
		do = r.w.Client.Do
	}
	res, err := do(ctx, req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	rec.MediaType = res.MediaType
	if !res.ModTime.IsZero() {
		t := res.ModTime.UTC()
		rec.ModTime = &t
	}
	rec.ETag = res.Extra[fetch.ExtraETag]
	// A body past MaxSize is Kind TooLarge (exit status 12), as the
	// command's --max-filesize says it: the library's one size limit.
	if err := fetch.LimitSize(res, r.w.MaxSize); err != nil {
		return nil, err
	}
	sp, err := r.w.Store.create()
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(sp, res.Body)
	if err == nil {
		err = res.Body.Close()
	}
	if err == nil && res.Size >= 0 && sp.n < res.Size {
		err = fetch.Errorf(fetch.Incomplete, "got %d of %d bytes", sp.n, res.Size)
	}
	if err != nil {
		sp.discard()
		return nil, err
	}
	return sp, nil
}

// finish stores the job's outcome once, publishes it, and acknowledges the
// job (terminates it, for a failure: it is not to be delivered again).
func (r *run) finish(ctx context.Context, d *delivery, key string, rec Record, sp *spool, ferr error) error {
	msg := d.msg
	if d.waits > 0 {
		// Its count of waits is of no more use.
		defer r.w.Queue.waits.Delete(context.WithoutCancel(ctx), r.w.Queue.jobKey(key, d.seq))
	}
	if ferr != nil {
		rec.Status = r.status(ferr)
		rec.Kind = kindName(ferr)
		rec.Error = ferr.Error()
	} else if rec.Kind == "" {
		rec.Kind = "file"
	}
	if sp != nil {
		rec.Body = key
	}
	if d.commit {
		// The commit point every worker sees: only the job's last
		// delivery passes it.
		if err := r.commit(ctx, d, key); err != nil {
			if sp != nil {
				sp.discard()
			}
			if errors.Is(err, errFenced) {
				// Another worker holds the job: the result is its to
				// store, the message its to acknowledge.
				r.w.Metrics.add(func(s *MetricsSnapshot) { s.Fenced++ })
				r.logf("%s: %v", redacted(rec.URL), err)
				return nil
			}
			msg.Nak() // stopping
			return nil
		}
	}
	stored, err := r.w.Store.commit(key, &rec, sp)
	if err != nil {
		if sp != nil {
			sp.discard()
		}
		msg.Nak()
		return err
	}
	// From here on the result is stored. Its publication is tried until
	// it succeeds, the job held meanwhile (handing it back would spend a
	// delivery on a failure of the queue, and a job whose deliveries ran
	// out would never publish its result). A worker that stops or dies
	// meanwhile leaves the job to be delivered again, recognised as
	// stored, and its result published then.
	if err := r.publish(ctx, msg, key, rec); err != nil {
		msg.Nak()
		return nil
	}
	if ferr != nil {
		err = msg.Term()
	} else {
		err = msg.Ack()
	}
	if err != nil {
		// Delivered again after AckWait, it is recognised as stored.
		r.logf("acknowledging %s: %v", redacted(rec.URL), err)
	}
	if stored {
		r.w.Metrics.record(rec)
	}
	if stored {
		r.onResult(rec)
	}
	return nil
}

// onResult calls the Worker's OnResult, if any, with rec, one call at a
// time.
func (r *run) onResult(rec Record) {
	if r.w.OnResult == nil {
		return
	}
	r.resultMu.Lock()
	defer r.resultMu.Unlock()
	r.w.OnResult(rec)
}

// commit passes the job's commit point, trying again after a failure of
// the queue, with a growing delay, until it passes, is fenced (errFenced)
// or ctx is done; meanwhile it tells JetStream the job is in progress.
func (r *run) commit(ctx context.Context, d *delivery, key string) error {
	var retry backoff
	for {
		err := r.w.Queue.commit(ctx, key, d.seq, d.claim, r.id)
		if err == nil || errors.Is(err, errFenced) || ctx.Err() != nil {
			return err
		}
		wait := retry.next()
		r.logf("%v; again in %v", err, wait.Round(time.Millisecond))
		d.msg.InProgress()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// publish publishes the result rec, trying again after a failure of the
// queue, with a growing delay, until it succeeds or ctx is done; meanwhile
// it tells JetStream that msg's job, if any (a crawl's page has none), is
// in progress.
func (r *run) publish(ctx context.Context, msg jetstream.Msg, key string, rec Record) error {
	var retry backoff
	for {
		err := r.w.Queue.publishResult(ctx, key, rec)
		if err == nil || ctx.Err() != nil {
			return err
		}
		d := retry.next()
		r.logf("publishing the result of %s: %v; again in %v", redacted(rec.URL), err, d.Round(time.Millisecond))
		if msg != nil {
			msg.InProgress()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
	}
}

// retry is the Worker's retry policy, with its defaults filled in.
func (r *run) retry() fetch.RetryPolicy {
	p := r.w.Retry
	if p.Attempts == 0 {
		p.Attempts = r.w.Queue.opts.maxDeliver() - 1
	}
	if p.MaxBackoff == 0 {
		p.MaxBackoff = 10 * time.Minute
	}
	return p
}

func (r *run) status(err error) int {
	if r.w.Status != nil {
		return r.w.Status(err)
	}
	if err != nil {
		return 1
	}
	return 0
}

// heartbeat tells JetStream the job is in progress every period until ctx
// is done.
func heartbeat(ctx context.Context, msg jetstream.Msg, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			msg.InProgress()
		}
	}
}

// kindName names a failure's kind in a record: "not found", "timeout", ...
func kindName(err error) string { return fetch.KindOf(err).Error() }

// redacted is rawURL with any password hidden, for a log line.
func redacted(rawURL string) string {
	if u, err := parser.Parse(rawURL); err == nil {
		return u.Redacted()
	}
	return "a malformed URL"
}
