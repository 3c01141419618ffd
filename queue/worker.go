package queue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Worker takes jobs from a Queue, fetches them with Client and stores the
// results in Store. A job is acknowledged only after its result is stored;
// a transient failure is handed back with a growing delay until the job's
// last delivery, and a permanent one (or the last) is recorded as failed.
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
	// OnResult, if set, is called with each record stored.
	OnResult func(Record)
}

// Run processes jobs until ctx is done, or, with Drain, until the queue is
// empty. It returns nil when stopped by ctx or by draining.
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
	// One pull subscription feeds the workers, asking for as many jobs as
	// they can take at once.
	it, err := w.Queue.cons.Messages(jetstream.PullMaxMessages(par))
	if err != nil {
		return fmt.Errorf("queue: %w", err)
	}
	msgs := make(chan jetstream.Msg)
	var wg sync.WaitGroup
	for range par {
		wg.Go(func() {
			for msg := range msgs {
				if err := r.handle(ctx, msg); err != nil {
					cancel(err)
				}
			}
		})
	}
	err = r.take(ctx, it, msgs)
	it.Stop()
	close(msgs)
	wg.Wait()
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
	w      *Worker
	id     string
	leases *leases
}

// take hands the jobs of it to the workers until ctx is done or, when
// draining, the queue is empty.
func (r *run) take(ctx context.Context, it jetstream.MessagesContext, msgs chan<- jetstream.Msg) error {
	for ctx.Err() == nil {
		msg, err := it.Next(jetstream.NextMaxWait(time.Second))
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, nats.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
			if r.w.Drain && r.empty(ctx) {
				return errDrained
			}
			continue
		case err != nil:
			return fmt.Errorf("queue: taking a job: %w", err)
		}
		select {
		case msgs <- msg:
		case <-ctx.Done():
			msg.Nak()
			return nil
		}
	}
	return nil
}

// empty reports whether no job is left, queued or delivered anywhere.
func (r *run) empty(ctx context.Context) bool {
	n, err := r.w.Queue.unfinished(ctx)
	return err == nil && n == 0
}

// handle processes one delivery of a job. Only a failure of the queue or
// the store is returned; a failed fetch is the job's outcome.
func (r *run) handle(ctx context.Context, msg jetstream.Msg) error {
	meta, err := msg.Metadata()
	if err != nil {
		return fmt.Errorf("queue: %w", err)
	}
	delivery := int(meta.NumDelivered)
	last := delivery >= r.w.Queue.opts.maxDeliver()
	job, err := decodeJob(msg.Data())
	if err != nil {
		// Not a job: nothing to fetch or to retry.
		msg.Term()
		return nil
	}
	key := Key(job.URL)
	if stored, err := r.w.Store.has(key); err != nil {
		msg.Nak()
		return err
	} else if stored {
		// Delivered again after it was stored (its worker died before
		// the acknowledgement arrived): nothing to fetch.
		return r.finish(ctx, msg, key, job, delivery, nil, nil)
	}

	u, perr := parser.Parse(job.URL)
	if perr != nil {
		// The parser's error holds the input with any password hidden.
		shown := "a malformed URL"
		var ue *url.Error
		if errors.As(perr, &ue) {
			shown = ue.Input
		}
		return r.finish(ctx, msg, key, job, delivery, nil, &fetch.Error{Op: "fetch", URL: shown, Kind: fetch.Malformed, Err: perr})
	}
	// The job is ours while we work on it: keep telling JetStream so, so
	// that AckWait bounds only the time to notice a dead worker.
	busy, stopBusy := context.WithCancel(ctx)
	defer stopBusy()
	go heartbeat(busy, msg, r.w.Queue.opts.ackWait()/3)

	var held *lease
	if addr := r.address(u); addr != "" {
		held, err = r.slot(busy, addr, last)
		switch {
		case errors.Is(err, errNoSlot):
			msg.NakWithDelay(time.Duration(500+rand.IntN(1500)) * time.Millisecond)
			return nil
		case err != nil && ctx.Err() != nil:
			msg.Nak()
			return nil
		case err != nil:
			msg.Nak()
			return err
		}
		defer held.release(context.WithoutCancel(ctx))
		go held.keep(busy)
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
	sp, ferr := r.fetch(fctx, u, job)
	if ferr != nil && ctx.Err() != nil {
		// Stopping: hand the job back at once for another worker.
		msg.Nak()
		return nil
	}
	if ferr != nil && !last {
		if delay, ok := r.retry().Wait(nil, delivery, ferr); ok {
			msg.NakWithDelay(delay)
			return nil
		}
	}
	return r.finish(ctx, msg, key, job, delivery, sp, ferr)
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
// never costs a job.
func (r *run) slot(ctx context.Context, hostport string, last bool) (*lease, error) {
	wait := 20 * time.Millisecond
	deadline := time.Now().Add(time.Second)
	for {
		l, err := r.leases.acquire(ctx, hostport)
		if !errors.Is(err, errNoSlot) {
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

// fetch fetches u into a body spooled in the store.
func (r *run) fetch(ctx context.Context, u *url.URL, job Job) (*spool, error) {
	req := &fetch.Request{URL: u, ConnectTimeout: job.ConnectTimeout}
	do := r.w.Do
	if do == nil {
		do = r.w.Client.Do
	}
	res, err := do(ctx, req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
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
func (r *run) finish(ctx context.Context, msg jetstream.Msg, key string, job Job, delivery int, sp *spool, ferr error) error {
	rec := Record{URL: job.URL, Worker: r.id, Attempts: delivery, Status: r.status(ferr)}
	if ferr != nil {
		rec.Kind = kindName(ferr)
		rec.Error = ferr.Error()
	} else {
		rec.Kind = "file"
	}
	stored, err := r.w.Store.commit(key, rec, sp)
	if err != nil {
		if sp != nil {
			sp.discard()
		}
		msg.Nak()
		return err
	}
	subject := ResultSubject + ".done"
	if ferr != nil {
		subject = ResultSubject + ".failed"
	}
	// The result's message id is the job's key: published again after a
	// redelivery, it is stored in the stream once.
	if _, err := r.w.Queue.js.Publish(ctx, subject, nil, jetstream.WithMsgID(key)); err != nil {
		msg.Nak()
		return fmt.Errorf("queue: publishing a result: %w", err)
	}
	if ferr != nil {
		err = msg.Term()
	} else {
		err = msg.Ack()
	}
	if err != nil {
		return fmt.Errorf("queue: acknowledging: %w", err)
	}
	if stored && r.w.OnResult != nil {
		r.w.OnResult(rec)
	}
	return nil
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
