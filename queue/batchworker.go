package queue

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// batchJob is the state of one job of a batch delivery.
type batchJob struct {
	u      *url.URL
	cond   validators // a recrawl's condition
	prev   seenJob    // the store's last record of its URL
	tries  int        // fetches in this delivery
	stored bool       // in the store already, by an earlier delivery
	rec    Record
	sp     *spool
	err    error // its failure, recorded
}

// handleBatch processes one delivery of a batch (see batch.go): its jobs
// one after the other on the batch's host slot, a transient failure tried
// again here after the retry policy's delay while the worker holds the
// message (a delivery again means only that a worker died or stopped),
// then one commit point, one store of every record, one message of
// results and one acknowledgement. The jobs a redelivered batch finds in
// the store (the same key and sequence) are not fetched again. Only a
// failure of the store is returned.
func (r *run) handleBatch(ctx context.Context, d *delivery) error {
	msg := d.msg
	keys := make([]string, len(d.batch))
	for i, j := range d.batch {
		keys[i] = Key(j.URL)
	}
	prev, known, err := r.w.Store.lastAll(keys)
	if err != nil {
		msg.Nak()
		return err
	}
	if d.bad > 0 {
		r.logf("batch %d: %d malformed jobs left out", d.seq, d.bad)
	}
	tries, maxD := d.attempts(), r.w.Queue.opts.maxDeliver()
	out := make([]batchJob, len(d.batch))
	var todo []int
	for i, job := range d.batch {
		b := &out[i]
		b.prev = prev[i]
		b.rec = Record{URL: job.URL, Worker: r.id, Attempts: tries, Waits: d.waits, Seq: d.seq}
		if known[i] && prev[i].seq == d.seq && !prev[i].crawl {
			// Stored by an earlier delivery of this batch, whose worker
			// died or stopped before the acknowledgement.
			b.stored = true
			b.rec.Status, b.rec.Kind, b.rec.ModTime, b.rec.ETag = prev[i].status, prev[i].kind, prev[i].modTime, prev[i].etag
			continue
		}
		if tries > maxD {
			b.err = fetch.Errorf(fetch.Incomplete, "delivered %d times without an outcome (at most %d)", tries, maxD)
			continue
		}
		u, perr := parser.Parse(job.URL)
		switch {
		case perr != nil:
			shown := "a malformed URL"
			var ue *url.Error
			if errors.As(perr, &ue) {
				shown = ue.Input
			}
			b.err = &fetch.Error{Op: "fetch", URL: shown, Kind: fetch.Malformed, Err: perr}
		case len(u.Host) > maxHost:
			b.err = fetch.Errorf(fetch.Malformed, "a host of %d bytes (at most %d)", len(u.Host), maxHost)
		case r.address(u) != d.addr:
			// Its batch's lease is for another address.
			b.err = fetch.Errorf(fetch.Malformed, "a job of another host than its batch's")
		default:
			b.u = u
			if known[i] {
				b.cond = prev[i].validators()
			}
			todo = append(todo, i)
		}
	}
	if len(todo) > 0 {
		d.commit = true
		if d.delivered > 1 {
			if d.claim, err = r.w.Queue.claim(ctx, d.key, d.seq, r.id); err != nil {
				if !errors.Is(err, errCommitted) {
					r.logf("%v; the batch goes back to the queue", err)
				}
				r.handBack(context.WithoutCancel(ctx), d, time.Second)
				return nil
			}
		}
		if !r.fetchBatch(ctx, d, out, todo) {
			return nil
		}
	}
	return r.finishBatch(ctx, d, keys, out)
}

// fetchBatch fetches the jobs todo of d, each transient failure tried
// again after its delay (the other jobs fetched meanwhile) until the
// job's last try. The batch's own fetch slot and lease make one lane;
// while jobs are ready and the last pull found no more messages than
// slots, it opens more lanes, each on a fetch slot free in this worker
// and one more lease of the host (up to --per-host), so that
// one host's batch is fetched as many at once as a host's jobs one a
// message would be; a lane closes when nothing is ready for it. It
// reports false when it gave the batch up: the worker stopping (the batch
// handed back at once) or a lease lost (handed back counted as a wait);
// what it fetched is then discarded.
func (r *run) fetchBatch(ctx context.Context, d *delivery, out []batchJob, todo []int) bool {
	busy, stopBusy := context.WithCancelCause(ctx)
	defer stopBusy(nil)
	go heartbeat(busy, d.msg, r.w.Queue.opts.ackWait()/3)
	if d.lease != nil {
		go d.lease.keep(busy, func(err error) { stopBusy(err) })
	}
	br := &batchRun{r: r, d: d, out: out, busy: busy, stop: stopBusy, changed: make(chan struct{}, 1), lanes: 1}
	br.queue = make([]batchTry, len(todo))
	for k, i := range todo {
		br.queue[k] = batchTry{i: i}
	}
	br.primary()
	br.wg.Wait()
	if busy.Err() == nil {
		return true
	}
	for i := range out {
		if out[i].sp != nil {
			out[i].sp.discard()
			out[i].sp = nil
		}
	}
	switch {
	case ctx.Err() != nil:
		d.msg.Nak() // stopping: at once for another worker
	case errors.Is(context.Cause(busy), errLeaseLost):
		r.logf("batch %d: %v; the batch goes back to the queue", d.seq, context.Cause(busy))
		r.handBack(context.WithoutCancel(ctx), d, time.Second)
	}
	return false
}

// batchTry is a job of a batch to fetch, not before due.
type batchTry struct {
	i   int
	due time.Time
}

// batchRun is the fetching of one batch delivery's jobs, in lanes.
type batchRun struct {
	r    *run
	d    *delivery
	out  []batchJob
	busy context.Context
	stop context.CancelCauseFunc
	wg   sync.WaitGroup // the lanes beside the first

	mu       sync.Mutex
	queue    []batchTry
	inflight int // jobs being fetched
	lanes    int
	full     time.Time     // no lease to be had until then
	changed  chan struct{} // a job was fetched
}

// next takes the job due first, if its time has come; else it returns
// how long until it comes (0 with ok false: nothing queued).
func (br *batchRun) next() (t batchTry, wait time.Duration, ok bool) {
	br.mu.Lock()
	defer br.mu.Unlock()
	if len(br.queue) == 0 {
		return t, 0, false
	}
	k := 0
	for j, q := range br.queue {
		if q.due.Before(br.queue[k].due) {
			k = j
		}
	}
	if w := time.Until(br.queue[k].due); w > 0 {
		return t, w, false
	}
	t = br.queue[k]
	br.queue = append(br.queue[:k], br.queue[k+1:]...)
	br.inflight++
	return t, 0, true
}

// primary is the batch's own lane: it fetches until every job is done or
// the batch is given up, waiting for the retries' delays, and opens
// other lanes while jobs are ready.
func (br *batchRun) primary() {
	for br.busy.Err() == nil {
		t, wait, ok := br.next()
		if ok {
			br.grow()
			br.fetch(t)
			continue
		}
		br.mu.Lock()
		idle := len(br.queue) == 0 && br.inflight == 0
		br.mu.Unlock()
		if idle {
			return
		}
		var timer <-chan time.Time
		var tm *time.Timer
		if wait > 0 {
			tm = time.NewTimer(wait)
			timer = tm.C
		}
		select {
		case <-br.busy.Done():
		case <-br.changed:
		case <-timer:
		}
		if tm != nil {
			tm.Stop()
		}
	}
}

// grow opens lanes while a job is ready for another, a fetch slot of
// the worker is free and a lease of the host can be had at once.
func (br *batchRun) grow() {
	for br.growOne() {
	}
}

// growOne opens one lane, if it can, and reports whether it did.
func (br *batchRun) growOne() bool {
	r := br.r
	br.mu.Lock()
	ready, now := 0, time.Now()
	for _, q := range br.queue {
		if !q.due.After(now) {
			ready++
		}
	}
	// Lanes not fetching now take a ready job each first.
	// No lane while the queue has messages for the free slots: a whole
	// batch in a slot costs the queue a few writes for its jobs, a lane
	// a lease's two.
	room := ready > br.lanes-br.inflight && br.lanes < r.leases.perHost && r.idle != nil && now.After(br.full) && !r.backlog.Load()
	br.mu.Unlock()
	if !room {
		return false
	}
	select {
	case <-r.idle:
	default:
		return false // every fetch slot busy
	}
	var l *lease
	if br.d.addr != "" {
		var err error
		if l = r.leases.unpark(br.busy, br.d.addr); l != nil {
			// A slot another job of the host left parked.
		} else if l, err = r.leases.acquire(br.busy, br.d.addr); err != nil {
			// The host's slots are taken (or the queue failed: the
			// lanes open go on): no other try for a while, so that a
			// busy host costs no request a job.
			r.freeSlot()
			br.mu.Lock()
			br.full = time.Now().Add(250 * time.Millisecond)
			br.mu.Unlock()
			return false
		}
	}
	br.mu.Lock()
	br.lanes++
	br.mu.Unlock()
	br.wg.Go(func() {
		defer r.freeSlot()
		if l != nil {
			go l.keep(br.busy, func(err error) { br.stop(err) })
			defer func() {
				// For the next job of the host that waits, as a job's.
				if br.busy.Err() != nil || !r.leases.park(br.d.addr, l) {
					r.free(br.d.addr, l)
				}
			}()
		}
		defer func() {
			br.mu.Lock()
			br.lanes--
			br.mu.Unlock()
		}()
		for br.busy.Err() == nil {
			t, _, ok := br.next()
			if !ok {
				return
			}
			br.fetch(t)
		}
	})
	return true
}

// fetch fetches the job of t once: its outcome, or its next try queued.
func (br *batchRun) fetch(t batchTry) {
	r, d := br.r, br.d
	b, job := &br.out[t.i], d.batch[t.i]
	defer func() {
		br.mu.Lock()
		br.inflight--
		br.mu.Unlock()
		select {
		case br.changed <- struct{}{}:
		default:
		}
	}()
	b.tries++
	fctx, cancel := br.busy, context.CancelFunc(func() {})
	maxTime := job.MaxTime
	if maxTime == 0 {
		maxTime = r.w.MaxTime
	}
	if maxTime > 0 {
		fctx, cancel = context.WithTimeout(br.busy, maxTime)
	}
	sp, ferr := r.fetch(fctx, b.u, job, b.cond, &b.rec)
	cancel()
	if br.busy.Err() != nil {
		if sp != nil {
			sp.discard()
		}
		return
	}
	attempt := br.d.attempts() - 1 + b.tries
	b.rec.Attempts = attempt
	if ferr != nil && attempt < r.w.Queue.opts.maxDeliver() {
		if delay, ok := r.retry().Wait(nil, attempt, ferr); ok {
			r.w.Metrics.add(func(s *MetricsSnapshot) { s.Retried++ })
			br.mu.Lock()
			br.queue = append(br.queue, batchTry{t.i, time.Now().Add(delay)})
			br.mu.Unlock()
			return
		}
	}
	if ferr != nil && fetch.KindOf(ferr) == fetch.NotModified {
		// Unchanged since the last crawl: the body stored then stays.
		b.rec.ModTime, b.rec.ETag = b.prev.modTime, b.prev.etag
		b.rec.Kind = kindName(ferr)
		b.rec.Body = Key(job.URL)
		return
	}
	b.sp, b.err = sp, ferr
}

// finishBatch passes the batch's commit point, stores the records of its
// jobs not stored before, publishes every record in one message and
// acknowledges the batch.
func (r *run) finishBatch(ctx context.Context, d *delivery, keys []string, out []batchJob) error {
	msg := d.msg
	if d.waits > 0 {
		defer r.w.Queue.waits.Delete(context.WithoutCancel(ctx), r.w.Queue.jobKey(d.key, d.seq))
	}
	discard := func() {
		for i := range out {
			if out[i].sp != nil {
				out[i].sp.discard()
			}
		}
	}
	var items []storeItem
	recs := make([]Record, len(out))
	lines := make([][]byte, len(out)) // each record's JSON, made once
	for i := range out {
		b := &out[i]
		if b.stored {
			line, err := json.Marshal(b.rec)
			if err != nil {
				discard()
				msg.Nak()
				return err
			}
			lines[i] = line
		} else {
			if b.err != nil {
				b.rec.Status = r.status(b.err)
				b.rec.Kind = kindName(b.err)
				b.rec.Error = b.err.Error()
			} else if b.rec.Kind == "" {
				b.rec.Kind = "file"
			}
			if b.sp != nil {
				b.rec.Body = keys[i]
			}
			line, err := seal(&b.rec, b.sp)
			if err != nil {
				discard()
				msg.Nak()
				return err
			}
			lines[i] = line
			items = append(items, storeItem{key: keys[i], rec: &b.rec, p: b.sp, line: line})
		}
	}
	if d.commit {
		if err := r.commit(ctx, d, d.key); err != nil {
			discard()
			if errors.Is(err, errFenced) {
				r.w.Metrics.add(func(s *MetricsSnapshot) { s.Fenced += uint64(len(items)) })
				r.logf("batch %d: %v", d.seq, err)
				return nil
			}
			msg.Nak() // stopping
			return nil
		}
	}
	stored, err := r.w.Store.commitAll(items)
	if err != nil {
		msg.Nak()
		return err
	}
	for i := range out {
		recs[i] = out[i].rec
	}
	// Stored: the results are published until they are, the batch held
	// meanwhile (see finish).
	var retry backoff
	for {
		err := r.w.Queue.publishResults(ctx, d.key, d.seq, recs, lines)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			msg.Nak()
			return nil
		}
		wait := retry.next()
		r.logf("publishing the results of batch %d: %v; again in %v", d.seq, err, wait.Round(time.Millisecond))
		msg.InProgress()
		select {
		case <-ctx.Done():
			msg.Nak()
			return nil
		case <-time.After(wait):
		}
	}
	if err := msg.Ack(); err != nil {
		r.logf("acknowledging batch %d: %v", d.seq, err)
	}
	for k, it := range items {
		if stored[k] {
			r.w.Metrics.record(*it.rec)
			r.onResult(*it.rec)
		}
	}
	return nil
}
