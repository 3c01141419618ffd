package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfc1738/fetch/url"
)

// delivery is a job taken from the queue on its way to a slot: what the
// dispatcher learnt of it, and the per-host lease it holds for it.
type delivery struct {
	msg       jetstream.Msg
	seq       uint64
	delivered int    // JetStream's count of deliveries, this one included
	waits     int    // of which handed back for want of a host slot
	job       Job    // the job (a batch's first), when jobErr is nil
	jobErr    error  // why the message is no job
	key       string // the job's Key, or the batch's hash: its name in FETCH_CLAIMS and FETCH_WAITS
	batch     []Job  // the jobs of a batch message; nil for a message of one job
	bad       int    // jobs of the batch left out as malformed
	u         *url.URL
	addr      string // the host:port its lease is for; "" for none
	lease     *lease
	commit    bool      // fetched by this delivery: its result passes the commit point
	claim     uint64    // the revision of this delivery's claim (see Queue.claim); 0 for a first delivery
	since     time.Time // when it began waiting for a host slot
}

// attempts is the job's deliveries that were tries at fetching it: those
// handed back for want of a host slot are not.
func (d *delivery) attempts() int { return max(d.delivered-d.waits, 1) }

// jobKey names the job of key at seq in FETCH_WAITS and FETCH_CLAIMS:
// "<key>.<epoch>.<seq>", epoch the creation time of FETCH_JOBS, so that
// a stream deleted and made again, whose sequences start over, meets no
// key of the old one's jobs.
func (q *Queue) jobKey(key string, seq uint64) string {
	return key + "." + q.epoch + "." + strconv.FormatUint(seq, 10)
}

// prepare reads a message taken from the queue: the job, its URL, the
// address its lease is for, and, for a job delivered before, how many of
// its deliveries were handed back for want of a slot.
func (r *run) prepare(ctx context.Context, msg jetstream.Msg) *delivery {
	d := &delivery{msg: msg}
	meta, err := msg.Metadata()
	if err != nil {
		d.jobErr = err
		return d
	}
	d.seq, d.delivered = meta.Sequence.Stream, int(meta.NumDelivered)
	jobs, batch, bad, err := decodeMessage(msg.Data())
	if err != nil {
		d.jobErr = err
		return d
	}
	d.job, d.key, d.bad = jobs[0], Key(jobs[0].URL), bad
	if batch {
		d.batch = jobs
		// The hash of the message, as in its subject (see
		// openBatch.message), and a valid bucket key whatever the
		// subject of a message published by other means.
		sum := sha256.Sum256(msg.Data())
		d.key = hex.EncodeToString(sum[:])
	}
	if d.delivered > 1 && r.w.Queue.waits != nil {
		if e, err := r.w.Queue.waits.Get(ctx, r.w.Queue.jobKey(d.key, d.seq)); err == nil {
			d.waits, _ = strconv.Atoi(string(e.Value()))
		} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
			r.logf("reading the waits of job %d: %v", d.seq, err)
		}
	}
	if u, err := parser.Parse(d.job.URL); err == nil {
		d.u = u
		if len(u.Host) <= maxHost {
			d.addr = r.address(u)
		}
	}
	return d
}

// handBack returns a job that waited for a host slot to the queue for a
// moment, counting the wait in FETCH_WAITS first, so that it is not taken
// for a try at fetching it: waiting costs a job none of its MaxDeliver.
func (r *run) handBack(ctx context.Context, d *delivery, delay time.Duration) {
	if q := r.w.Queue.waits; q != nil {
		if _, err := q.Put(ctx, r.w.Queue.jobKey(d.key, d.seq), []byte(strconv.Itoa(d.waits+1))); err != nil {
			r.logf("counting a wait of job %d: %v", d.seq, err)
		}
	}
	r.w.Metrics.add(func(s *MetricsSnapshot) { s.HandedBack++ })
	d.msg.NakWithDelay(delay)
}

// dispatcher holds the jobs that wait for a host slot, by host, so that
// they hold no fetch slot: the worker goes on taking jobs for the hosts
// that have one free. Hosts are tried in turn.
type dispatcher struct {
	r       *run
	idle    chan struct{}    // a token per free fetch slot
	msgs    chan<- *delivery // to the fetch slots
	hold    int              // jobs waiting at most; past it the oldest are handed back
	waiting map[string][]*delivery
	hosts   []string // hosts with jobs waiting, in turn
	n       int      // jobs waiting
}

// offer sends d to a free slot when it needs no lease or its host has a
// free slot; else it waits, and a job waiting past the hold is handed
// back. The caller has a free slot.
func (ds *dispatcher) offer(ctx context.Context, d *delivery) {
	if d.addr == "" || d.jobErr != nil {
		ds.send(d) // no lease to take: handle terminates or records it
		return
	}
	if ds.waiting[d.addr] == nil && ds.try(ctx, d) {
		return
	}
	if d.since.IsZero() {
		d.since = time.Now()
	}
	if ds.waiting[d.addr] == nil {
		ds.hosts = append(ds.hosts, d.addr)
	}
	ds.waiting[d.addr] = append(ds.waiting[d.addr], d)
	ds.n++
	for ds.n > ds.hold {
		ds.handBackOldest(ctx)
	}
}

// try takes a lease for d and sends it to a free slot; it reports
// whether it did. A failure of the queue other than a full host hands the
// job back.
func (ds *dispatcher) try(ctx context.Context, d *delivery) bool {
	if l := ds.r.leases.unpark(ctx, d.addr); l != nil {
		// The slot of a job of the host that ended: no write.
		d.lease = l
		ds.send(d)
		return true
	}
	l, err := ds.r.leases.acquire(ctx, d.addr)
	if errors.Is(err, errNoSlot) {
		return false
	}
	if err != nil {
		if ctx.Err() == nil {
			ds.r.logf("%v; the job goes back to the queue", err)
		}
		ds.r.handBack(context.WithoutCancel(ctx), d, time.Second)
		return true
	}
	if !d.since.IsZero() {
		ds.r.w.Metrics.leaseWait(time.Since(d.since))
	}
	d.lease = l
	ds.send(d)
	return true
}

// send gives d to a free slot.
func (ds *dispatcher) send(d *delivery) {
	<-ds.idle
	ds.msgs <- d
}

// retry gives waiting jobs to the free slots, trying each host with jobs
// waiting once, in turn.
func (ds *dispatcher) retry(ctx context.Context) {
	for i := 0; i < len(ds.hosts) && len(ds.idle) > 0; {
		h := ds.hosts[i]
		q := ds.waiting[h]
		if !ds.try(ctx, q[0]) {
			i++
			continue
		}
		ds.pop(i)
	}
	if len(ds.hosts) > 1 {
		// The next round starts with another host.
		ds.hosts = append(ds.hosts[1:], ds.hosts[0])
	}
}

// pop removes the first job waiting for the i-th host.
func (ds *dispatcher) pop(i int) *delivery {
	h := ds.hosts[i]
	q := ds.waiting[h]
	d := q[0]
	ds.n--
	if len(q) == 1 {
		delete(ds.waiting, h)
		ds.hosts = append(ds.hosts[:i], ds.hosts[i+1:]...)
	} else {
		ds.waiting[h] = q[1:]
	}
	return d
}

// handBackOldest hands back the first job of the host with the most
// waiting, for a moment.
func (ds *dispatcher) handBackOldest(ctx context.Context) {
	most := 0
	for i, h := range ds.hosts {
		if len(ds.waiting[h]) > len(ds.waiting[ds.hosts[most]]) {
			most = i
		}
	}
	d := ds.pop(most)
	ds.r.handBack(context.WithoutCancel(ctx), d, time.Duration(250+rand.IntN(500))*time.Millisecond)
}

// beat tells JetStream that the waiting jobs are in progress.
func (ds *dispatcher) beat() {
	for _, q := range ds.waiting {
		for _, d := range q {
			d.msg.InProgress()
		}
	}
}

// stop hands every waiting job back at once.
func (ds *dispatcher) stop(ctx context.Context) {
	for len(ds.hosts) > 0 {
		ds.r.handBack(context.WithoutCancel(ctx), ds.pop(0), 0)
	}
}

// take hands jobs to the fetch slots until ctx is done or, when draining,
// the queue is empty. It pulls as many jobs as slots are free; a job
// whose host has every slot taken (across the fleet) waits here, holding
// no fetch slot, while the worker goes on with other hosts' jobs, and is
// tried again as slots free. A failure of the queue (a server gone, a
// leader being elected, the consumer lost) is logged and tried again with
// a growing delay, the consumer recreated: it never ends the run.
func (r *run) take(ctx context.Context, idle chan struct{}, freed <-chan struct{}, msgs chan<- *delivery) error {
	ds := &dispatcher{r: r, idle: idle, msgs: msgs, hold: cap(idle), waiting: map[string][]*delivery{}}
	defer ds.stop(ctx)
	beat := time.NewTicker(r.w.Queue.opts.ackWait() / 3)
	defer beat.Stop()
	var retry backoff
	empty := 0   // consecutive looks that found the queue empty
	dry := false // the last pull took no job
	for {
		select {
		case <-beat.C:
			ds.beat()
		default:
		}
		ds.retry(ctx)
		// A slot parked by a job that ended is freed after a moment
		// unless a job of its host waits here for it (see linger).
		reap := r.leases.reap(func(hp string) bool { return len(ds.waiting[hp]) > 0 }, r.free)
		if len(idle) == 0 {
			// Every slot busy: wait for one, trying the waiting hosts
			// again now and then (another worker may free a slot), and
			// freeing the parked slots when due.
			var again <-chan time.Time
			if ds.n > 0 && (reap == 0 || reap > 50*time.Millisecond) {
				reap = 50 * time.Millisecond
			}
			if reap > 0 {
				again = time.After(reap)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-freed:
			case <-beat.C:
				ds.beat()
			case <-again:
			}
			continue
		}
		wait := time.Second
		switch {
		case ds.n > 0:
			wait = 100 * time.Millisecond
		case r.w.Drain && dry:
			// Draining, and the last pull found nothing: look again
			// soon, for the end (or the jobs other workers hand back)
			// rather than wait a second a look.
			wait = 100 * time.Millisecond
		case r.w.Drain:
			wait = 250 * time.Millisecond
		}
		if reap > 0 {
			wait = min(wait, reap)
		}
		asked := len(idle)
		got, err := r.pull(ctx, ds, asked, wait)
		dry = err == nil && got == 0
		r.backlog.Store(err == nil && got >= asked)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			d := retry.next()
			r.logf("taking jobs: %v; again in %v", err, d.Round(time.Millisecond))
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(d):
			}
			if err := r.w.Queue.recoverConsumer(ctx); err != nil {
				r.logf("recreating the consumer %s: %v", Consumer, err)
			}
			continue
		}
		if retry.failures > 0 {
			r.logf("taking jobs again after %d failures", retry.failures)
		}
		retry = backoff{}
		if got > 0 || ds.n > 0 || !r.w.Drain {
			empty = 0
			continue
		}
		// Two looks a pull apart, so that jobs just published, which the
		// consumer counts a moment later, are not missed.
		if r.empty(ctx) {
			empty++
		} else {
			empty = 0
		}
		if empty >= 2 {
			return errDrained
		}
	}
}

// pull fetches up to n jobs, waiting at most wait for the first, and
// offers each to the dispatcher; it returns how many it took.
func (r *run) pull(ctx context.Context, ds *dispatcher, n int, wait time.Duration) (int, error) {
	batch, err := r.w.Queue.consumer().Fetch(n, jetstream.FetchMaxWait(wait))
	if err != nil {
		return 0, err
	}
	got := 0
	for msg := range batch.Messages() {
		got++
		if ctx.Err() != nil {
			msg.Nak()
			continue
		}
		ds.offer(ctx, r.prepare(ctx, msg))
	}
	if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
		return got, err
	}
	return got, nil
}
