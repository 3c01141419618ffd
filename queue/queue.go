package queue

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The names of the JetStream objects the queue uses.
const (
	JobStream     = "FETCH_JOBS"
	JobSubject    = "fetch.jobs"
	Consumer      = "FETCH_WORKERS"
	ResultStream  = "FETCH_RESULTS"
	ResultSubject = "fetch.results" // ".done" or ".failed" follows
	HostBucket    = "FETCH_HOSTS"
)

// Options says where the queue is and how its consumer behaves. The zero
// value runs an embedded server with its state in DefaultStateDir.
type Options struct {
	// NATS is the URL of a NATS server or cluster with JetStream
	// ("nats://host:4222", several separated by commas). Empty means an
	// embedded server with its state in StateDir.
	NATS string
	// StateDir holds the embedded server's state. Empty means
	// DefaultStateDir().
	StateDir string
	// AckWait is how long a delivered job may go unacknowledged before it
	// is delivered again. Zero means 2 minutes. A worker signals progress
	// on long fetches, so this bounds the time to notice a dead worker,
	// not a fetch's length.
	AckWait time.Duration
	// MaxDeliver bounds the deliveries of one job. Zero means 5.
	MaxDeliver int
	// LeaseTTL is how long a dead worker's per-host lease lasts. Zero
	// means 30 seconds.
	LeaseTTL time.Duration
}

func (o Options) ackWait() time.Duration {
	if o.AckWait > 0 {
		return o.AckWait
	}
	return 2 * time.Minute
}

func (o Options) maxDeliver() int {
	if o.MaxDeliver > 0 {
		return o.MaxDeliver
	}
	return 5
}

func (o Options) leaseTTL() time.Duration {
	if o.LeaseTTL > 0 {
		return o.LeaseTTL
	}
	return 30 * time.Second
}

// DefaultStateDir is the embedded server's state directory when none is
// given: fetch/queue under $XDG_STATE_HOME, else ~/.local/state, else the
// user's cache directory.
func DefaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "fetch", "queue")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "state", "fetch", "queue")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "fetch", "queue")
	}
	return filepath.Join(os.TempDir(), "fetch-queue")
}

// Queue is a connection to the job queue: its stream, consumer and buckets
// exist once Open returns. It is safe for concurrent use.
type Queue struct {
	opts    Options
	nc      *nats.Conn
	js      jetstream.JetStream
	jobs    jetstream.Stream
	cons    jetstream.Consumer
	hosts   jetstream.KeyValue
	results jetstream.Stream
	emb     *embedded // the server this process runs, or the one it connects to

	mu       sync.Mutex
	taken    []*embedded   // servers this process took over (see takeOver)
	closing  chan struct{} // closed by Close
	reviving chan struct{} // closed when a lost connection is back
}

// Open connects to the queue that opts names, creating its stream,
// consumer and buckets when missing.
func Open(ctx context.Context, opts Options) (*Queue, error) {
	q := &Queue{opts: opts, closing: make(chan struct{})}
	addr := opts.NATS
	connOpts := []nats.Option{nats.Name("fetch"), nats.MaxReconnects(-1), nats.ReconnectWait(100 * time.Millisecond)}
	if addr == "" {
		dir := opts.StateDir
		if dir == "" {
			dir = DefaultStateDir()
		}
		connOpts = append(connOpts,
			nats.DisconnectErrHandler(func(*nats.Conn, error) { q.lost(dir) }),
			nats.ReconnectHandler(func(*nats.Conn) { q.back() }))
		nc, err := q.connectEmbedded(ctx, dir, connOpts)
		if err != nil {
			return nil, err
		}
		q.nc = nc
	} else {
		nc, err := nats.Connect(addr, connOpts...)
		if err != nil {
			return nil, fmt.Errorf("queue: connecting to %s: %w", addr, err)
		}
		q.nc = nc
	}
	if err := q.setupPatiently(ctx); err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

// setupTime bounds the retries of setupPatiently.
const setupTime = 30 * time.Second

// setupPatiently runs setup again while its JetStream calls time out, for
// up to setupTime: a server that has just started, or taken over the
// directory of one that died, answers them only once it has recovered
// its streams, which can take longer than one call's timeout (5 s when
// ctx sets none). Each step of setup creates or updates, so a second run
// after a partial first one is the same.
func (q *Queue) setupPatiently(ctx context.Context) error {
	deadline := time.Now().Add(setupTime)
	for {
		err := q.setup(ctx)
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) ||
			!(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)) {
			return err
		}
	}
}

// connectEmbedded connects to the embedded server of dir, run by this
// process or another. A server found exiting (its process hands over the
// directory as this one starts) is waited out: the next try serves the
// directory, or finds its new host, for up to 30 seconds.
func (q *Queue) connectEmbedded(ctx context.Context, dir string, connOpts []nats.Option) (*nats.Conn, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		e, err := startEmbedded(dir, time.Until(deadline))
		if err != nil {
			return nil, err
		}
		nc, err := nats.Connect(e.url, connOpts...)
		if err == nil {
			q.emb = e
			return nc, nil
		}
		e.close()
		if e.srv != nil || time.Now().After(deadline) {
			return nil, fmt.Errorf("queue: connecting to %s: %w", e.url, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (q *Queue) setup(ctx context.Context) error {
	js, err := jetstream.New(q.nc)
	if err != nil {
		return fmt.Errorf("queue: %w", err)
	}
	q.js = js
	q.jobs, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        JobStream,
		Description: "fetch jobs, one URL a message",
		Subjects:    []string{JobSubject},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Duplicates:  10 * time.Minute,
		MaxMsgSize:  maxJobSize,
	})
	if err != nil {
		return fmt.Errorf("queue: stream %s: %w", JobStream, err)
	}
	q.cons, err = js.CreateOrUpdateConsumer(ctx, JobStream, jetstream.ConsumerConfig{
		Durable:       Consumer,
		Description:   "fetch workers",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       q.opts.ackWait(),
		MaxDeliver:    q.opts.maxDeliver(),
		MaxAckPending: 10000,
	})
	if err != nil {
		return fmt.Errorf("queue: consumer %s: %w", Consumer, err)
	}
	q.results, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        ResultStream,
		Description: "fetch results, one message a finished job",
		Subjects:    []string{ResultSubject + ".>"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return fmt.Errorf("queue: stream %s: %w", ResultStream, err)
	}
	q.hosts, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      HostBucket,
		Description: "per-host connection leases of fetch workers",
		TTL:         q.opts.leaseTTL(),
		History:     1,
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return fmt.Errorf("queue: bucket %s: %w", HostBucket, err)
	}
	return nil
}

// Close closes the connection, and stops the embedded server this process
// runs, if any.
func (q *Queue) Close() error {
	q.mu.Lock()
	select {
	case <-q.closing:
	default:
		close(q.closing)
	}
	q.mu.Unlock()
	if q.nc != nil {
		q.nc.Drain()
		q.nc.Close()
	}
	q.emb.close()
	q.mu.Lock()
	taken := q.taken
	q.taken = nil
	q.mu.Unlock()
	for _, e := range taken {
		e.close()
	}
	return nil
}

// lost is called when the connection to the embedded server drops: the
// process that ran it may have exited, and this one takes over if so.
func (q *Queue) lost(dir string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.reviving != nil || q.emb.srv != nil {
		return
	}
	select {
	case <-q.closing:
		return
	default:
	}
	back := make(chan struct{})
	q.reviving = back
	go func() {
		stop := make(chan struct{})
		go func() {
			select {
			case <-back:
			case <-q.closing:
			}
			close(stop)
		}()
		if e := takeOver(dir, stop); e != nil {
			q.mu.Lock()
			q.taken = append(q.taken, e)
			q.mu.Unlock()
		}
	}()
}

// back is called when the connection is restored.
func (q *Queue) back() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.reviving != nil {
		close(q.reviving)
		q.reviving = nil
	}
}

// Enqueue publishes every job of jobs and returns how many the server
// stored. A job's message id is Key(job.URL), so a URL enqueued again within
// the duplicate window (10 minutes) is not queued twice; dup counts those.
func (q *Queue) Enqueue(ctx context.Context, jobs iter.Seq[Job]) (n, dup int, err error) {
	const window = 256 // publishes in flight at once
	var pending []jetstream.PubAckFuture
	settle := func(all bool) error {
		for len(pending) > 0 && (all || len(pending) >= window) {
			f := pending[0]
			select {
			case ack := <-f.Ok():
				if ack.Duplicate {
					dup++
				} else {
					n++
				}
			case err := <-f.Err():
				return fmt.Errorf("queue: publishing %s: %w", f.Msg().Header.Get(jetstream.MsgIDHeader), err)
			case <-ctx.Done():
				return ctx.Err()
			}
			pending = pending[1:]
		}
		return nil
	}
	for j := range jobs {
		data, err := j.encode()
		if err != nil {
			return n, dup, err
		}
		f, err := q.js.PublishAsync(JobSubject, data, jetstream.WithMsgID(Key(j.URL)))
		if err != nil {
			return n, dup, fmt.Errorf("queue: publishing: %w", err)
		}
		pending = append(pending, f)
		if err := settle(false); err != nil {
			return n, dup, err
		}
	}
	return n, dup, settle(true)
}

// Stats is the state of the queue.
type Stats struct {
	Queued   uint64 `json:"queued"`    // jobs not yet delivered (or handed back)
	InFlight int    `json:"in_flight"` // jobs delivered and not yet acknowledged
	Done     uint64 `json:"done"`      // jobs fetched and stored
	Failed   uint64 `json:"failed"`    // jobs that failed for good, recorded
}

// Stats reports the queue's progress.
func (q *Queue) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	// The stream holds exactly the jobs not yet finished (work-queue
	// retention drops a job when it is acknowledged), and its count is
	// current as soon as a publish is acknowledged; the consumer's counts
	// follow a moment later. So queued is the stream's count less what
	// the consumer has out.
	left, err := q.unfinished(ctx)
	if err != nil {
		return s, err
	}
	ci, err := q.cons.Info(ctx)
	if err != nil {
		return s, fmt.Errorf("queue: %w", err)
	}
	s.InFlight = min(ci.NumAckPending, int(min(left, uint64(math.MaxInt))))
	s.Queued = left - uint64(s.InFlight)
	si, err := q.results.Info(ctx, jetstream.WithSubjectFilter(ResultSubject+".>"))
	if err != nil {
		return s, fmt.Errorf("queue: %w", err)
	}
	s.Done = si.State.Subjects[ResultSubject+".done"]
	s.Failed = si.State.Subjects[ResultSubject+".failed"]
	return s, nil
}

// unfinished returns the number of jobs in the stream: queued, in flight,
// or handed back for later.
func (q *Queue) unfinished(ctx context.Context) (uint64, error) {
	si, err := q.jobs.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("queue: %w", err)
	}
	return si.State.Msgs, nil
}

// errNoSlot says a job's host has every lease taken.
var errNoSlot = errors.New("every connection slot to the host is taken")
