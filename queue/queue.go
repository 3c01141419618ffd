package queue

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The names of the JetStream objects the queue uses.
const (
	JobStream     = "FETCH_JOBS"
	JobSubject    = "fetch.jobs" // ".<host>.<key>" follows (see JobSubjectOf)
	Consumer      = "FETCH_WORKERS"
	ResultStream  = "FETCH_RESULTS"
	ResultSubject = "fetch.results" // ".done.<key>" or ".failed.<key>" follows
	HostBucket    = "FETCH_HOSTS"
	WaitBucket    = "FETCH_WAITS"
	StatsBucket   = "FETCH_STATS"
)

// Options says where the queue is and how its consumer behaves. The zero
// value runs an embedded server with its state in DefaultStateDir.
type Options struct {
	// NATS is the URL of a NATS server or cluster with JetStream
	// ("nats://host:4222", several separated by commas). Empty means an
	// embedded server with its state in StateDir.
	NATS string
	// StateDir holds the embedded server's state. Empty means
	// DefaultStateDir(). The server requires the credential kept there in
	// server.token (mode 0600, made the first time).
	StateDir string
	// Listen is where the embedded server listens, "host:port". Empty
	// means loopback (127.0.0.1), on a port chosen the first time and kept
	// in the state directory; a host without a port ("0.0.0.0:0") keeps
	// the port in the same way. A worker on another machine then joins
	// with NATS "nats://TOKEN@host:port", TOKEN from server.token.
	Listen string
	// AckWait is how long a delivered job may go unacknowledged before it
	// is delivered again. Zero means 2 minutes. A worker signals progress
	// on long fetches, so this bounds the time to notice a dead worker,
	// not a fetch's length.
	AckWait time.Duration
	// MaxDeliver bounds the fetch attempts of one job: the attempt of
	// that number records the outcome, whatever it is. Zero means 5.
	// Deliveries handed back for want of a host slot are no attempts
	// (FETCH_WAITS counts them); others that attempt nothing (a worker
	// stopping) count. The consumer itself redelivers a job without
	// limit: a job is never left in the stream undelivered because its
	// deliveries ran out.
	MaxDeliver int
	// LeaseTTL is how long a dead worker's per-host lease lasts. Zero
	// means 30 seconds.
	LeaseTTL time.Duration
	// Batch is the most jobs Enqueue packs into one message, all of one
	// host (see DefaultBatch). Zero means DefaultBatch; 1 publishes one
	// job a message, as before batches. Workers read both.
	Batch int
	// Replicas is the number of servers that keep each stream, bucket
	// and consumer of the queue. Zero means 3 on a cluster of three
	// servers or more, else 1. An object that has more replicas already
	// (an operator raised them) keeps them: Open never lowers them.
	Replicas int
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

func (o Options) batch() int {
	if o.Batch > 0 {
		return o.Batch
	}
	return DefaultBatch
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
	hosts   jetstream.KeyValue
	waits   jetstream.KeyValue
	claims  jetstream.KeyValue
	epoch   string // FETCH_JOBS's creation time, in jobKey
	stats   jetstream.KeyValue
	results jetstream.Stream
	emb     *embedded // the server this process runs, or the one it connects to

	mu       sync.Mutex
	cons     jetstream.Consumer // recreated by recoverConsumer
	consCfg  jetstream.ConsumerConfig
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
func (q *Queue) setupPatiently(ctx context.Context) error { return patiently(ctx, q.setup) }

// patiently runs f again while it fails with an error a settling server
// gives (settling: a cluster electing a leader, a stream or consumer
// moving to more replicas), every 250 ms for up to setupTime, and returns
// its last error.
func patiently(ctx context.Context, f func(context.Context) error) error {
	deadline := time.Now().Add(setupTime)
	for {
		err := f(ctx)
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) || !settling(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// settling reports whether err is one a server gives while it starts or
// a cluster forms: a timeout, "JetStream system temporarily unavailable"
// (10008), or "no suitable peers for placement" (10005) before every
// server of the cluster has joined its JetStream group; or one of a
// stream or bucket made by another process at the same moment: "stream
// name already in use" (10058), "subjects overlap with an existing
// stream" (10065), which the next try finds made.
func settling(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode {
		case 10005, 10008, 10058, 10065:
			return true
		}
	}
	return isTimeout(err)
}

// connectEmbedded connects to the embedded server of dir, run by this
// process or another. A server found exiting (its process hands over the
// directory as this one starts) is waited out: the next try serves the
// directory, or finds its new host, for up to 30 seconds.
func (q *Queue) connectEmbedded(ctx context.Context, dir string, connOpts []nats.Option) (*nats.Conn, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		e, err := startEmbedded(dir, q.opts.Listen, time.Until(deadline))
		if err != nil {
			return nil, err
		}
		nc, err := nats.Connect(e.url, append(connOpts, nats.Token(e.token))...)
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
	repl := q.replicas()
	subjects := []string{JobSubject + ".*.*"}
	if s, err := js.Stream(ctx, JobStream); err == nil && slices.Contains(s.CachedInfo().Config.Subjects, JobSubject+".*") {
		// A queue of the first layout (fetch.jobs.<key>): its jobs stay
		// readable, and a command of that version can still enqueue.
		subjects = append(subjects, JobSubject+".*")
	}
	q.jobs, err = q.stream(ctx, jetstream.StreamConfig{
		Name:        JobStream,
		Description: "fetch jobs, one URL a message, on subjects by host",
		Subjects:    subjects,
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		// A job is on the subject of its key, one at a time: a URL
		// enqueued while its job is still pending (queued or in flight)
		// is refused, and enqueued again once the job is done it is
		// queued again (a recrawl).
		MaxMsgsPerSubject:    1,
		Discard:              jetstream.DiscardNew,
		DiscardNewPerSubject: true,
		MaxMsgSize:           maxJobSize,
		Replicas:             repl,
	})
	if err != nil {
		return err
	}
	q.epoch = strconv.FormatInt(q.jobs.CachedInfo().Created.Unix(), 36)
	q.consCfg = jetstream.ConsumerConfig{
		Durable:     Consumer,
		Description: "fetch workers",
		AckPolicy:   jetstream.AckExplicitPolicy,
		AckWait:     q.opts.ackWait(),
		// Unlimited: the worker judges a job's last attempt (see
		// Options.MaxDeliver), counting the tries (deliveries less the
		// waits for a host slot FETCH_WAITS counts); a limit here would
		// strand a job whose last delivery was handed back.
		MaxDeliver:    -1,
		MaxAckPending: 10000,
		Replicas:      q.jobs.CachedInfo().Config.Replicas,
	}
	if err := q.recoverConsumer(ctx); err != nil {
		return err
	}
	q.results, err = q.stream(ctx, jetstream.StreamConfig{
		Name:        ResultStream,
		Description: "fetch results, one message a finished job",
		Subjects:    []string{ResultSubject + ".>"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		// A result published again for a job delivered again after
		// AckWait is stored once.
		Duplicates: 30 * time.Minute,
		Replicas:   repl,
	})
	if err != nil {
		return err
	}
	kvCfg := jetstream.KeyValueConfig{
		Bucket:      HostBucket,
		Description: "per-host connection leases of fetch workers",
		TTL:         q.opts.leaseTTL(),
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    repl,
	}
	if !exclusiveCreate(q.nc.ConnectedServerVersion()) {
		// A lease is a key created only if absent; before 2.11 a
		// replicated stream could accept two such creates at once
		// (nats-server issues 4320 and 5644), which would put two
		// workers in one slot. Leases are soft state (a TTL frees
		// them), so one replica costs only a pause while its server
		// is down.
		kvCfg.Replicas = 1
	}
	if q.hosts, err = q.bucket(ctx, kvCfg); err != nil {
		return err
	}
	claimRepl := repl
	if !exclusiveCreate(q.nc.ConnectedServerVersion()) {
		// A commit is a compare-and-set, exclusive on a replicated
		// stream from 2.11 on only (as a lease's create).
		claimRepl = 1
	}
	q.claims, err = q.bucket(ctx, jetstream.KeyValueConfig{
		Bucket:      ClaimBucket,
		Description: "which delivery of each job may commit its result",
		TTL:         7 * 24 * time.Hour,
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    claimRepl,
	})
	if err != nil {
		return err
	}
	q.waits, err = q.bucket(ctx, jetstream.KeyValueConfig{
		Bucket:      WaitBucket,
		Description: "how often each pending job was handed back for want of a host slot",
		TTL:         7 * 24 * time.Hour,
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    repl,
	})
	if err != nil {
		return err
	}
	statsCfg := jetstream.KeyValueConfig{
		Bucket:      StatsBucket,
		Description: "each fetch worker's counts, published every few seconds",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    repl,
	}
	if q.stats, err = q.bucket(ctx, statsCfg); err != nil {
		return err
	}
	return nil
}

// bucket opens the key-value bucket of cfg, creating it or updating it to
// cfg; a bucket that has more replicas than cfg asks for keeps them, and
// one that has cfg's settings already is not updated, as stream leaves a
// stream (an update that changes nothing rewrites the bucket's stream
// configuration, racing on nats-server 2.15.2 with what other processes
// do to it at the moment).
func (q *Queue) bucket(ctx context.Context, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	if kv, err := q.js.KeyValue(ctx, cfg.Bucket); err == nil {
		if st, err := kv.Status(ctx); err == nil {
			if bs, ok := st.(*jetstream.KeyValueBucketStatus); ok {
				have := bs.StreamInfo().Config
				cfg.Replicas = max(cfg.Replicas, have.Replicas)
				if bucketHas(have, cfg) {
					return kv, nil
				}
			}
		}
	}
	kv, err := q.js.CreateOrUpdateKeyValue(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("queue: bucket %s: %w", cfg.Bucket, err)
	}
	return kv, nil
}

// bucketHas reports whether a bucket whose stream has the configuration
// have holds the settings of want the queue gives: description, TTL,
// history, value size, storage and replicas.
func bucketHas(have jetstream.StreamConfig, want jetstream.KeyValueConfig) bool {
	maxValue := want.MaxValueSize
	if maxValue == 0 {
		maxValue = -1
	}
	return have.Description == want.Description && have.MaxAge == want.TTL &&
		have.MaxMsgsPerSubject == int64(max(want.History, 1)) && have.MaxMsgSize == maxValue &&
		have.Storage == want.Storage && have.Replicas == max(want.Replicas, 1)
}

// exclusiveCreate reports whether a server of version v ("2.9.10")
// accepts one of two concurrent creates of a key on a replicated stream:
// from 2.11 on.
func exclusiveCreate(v string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(strings.TrimPrefix(v, "v"), "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 2 || major == 2 && minor >= 11
}

// replicas is the number of replicas the queue's objects are made with:
// Options.Replicas, else 3 on a cluster of three servers or more, else 1.
func (q *Queue) replicas() int {
	if q.opts.Replicas > 0 {
		return q.opts.Replicas
	}
	if q.nc.ConnectedClusterName() != "" && len(q.nc.Servers()) >= 3 {
		return 3
	}
	return 1
}

// stream creates the stream of cfg, or updates it to cfg; a stream that
// has more replicas than cfg asks for keeps them. A stream that has cfg's
// settings already is not updated: an update that changes nothing still
// rewrites the stream's configuration on the server, which every command
// opening the queue would otherwise do (and which nats-server 2.15.2 does
// racing with a consumer being created at the same moment: the race
// detector caught it in TestStartCrawlAtOnce).
func (q *Queue) stream(ctx context.Context, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	if s, err := q.js.Stream(ctx, cfg.Name); err == nil {
		have := s.CachedInfo().Config
		cfg.Replicas = max(cfg.Replicas, have.Replicas)
		if hasSettings(have, cfg) {
			return s, nil
		}
	}
	s, err := q.js.CreateOrUpdateStream(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("queue: stream %s: %w", cfg.Name, err)
	}
	return s, nil
}

// hasSettings reports whether the stream configuration have holds every
// setting want gives: the same name, description, subjects, retention,
// storage, discard policy and replicas, and each limit want sets (a zero
// limit is the server's default, which have holds filled in).
func hasSettings(have, want jetstream.StreamConfig) bool {
	return have.Name == want.Name && have.Description == want.Description &&
		slices.Equal(have.Subjects, want.Subjects) &&
		have.Retention == want.Retention && have.Storage == want.Storage &&
		have.Discard == want.Discard && have.DiscardNewPerSubject == want.DiscardNewPerSubject &&
		have.Replicas == want.Replicas &&
		(want.MaxMsgsPerSubject == 0 || have.MaxMsgsPerSubject == want.MaxMsgsPerSubject) &&
		(want.MaxMsgSize == 0 || have.MaxMsgSize == want.MaxMsgSize) &&
		(want.Duplicates == 0 || have.Duplicates == want.Duplicates) &&
		(want.MaxAge == 0 || have.MaxAge == want.MaxAge) &&
		(want.MaxMsgs == 0 || have.MaxMsgs == want.MaxMsgs) &&
		(want.MaxBytes == 0 || have.MaxBytes == want.MaxBytes)
}

// recoverConsumer creates the workers' consumer, or updates it, keeping
// replicas it has beyond the configuration's; a worker calls it again
// after a failure of the queue, in case the consumer was lost.
func (q *Queue) recoverConsumer(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	q.mu.Lock()
	cfg := q.consCfg
	q.mu.Unlock()
	if c, err := q.js.Consumer(ctx, JobStream, cfg.Durable); err == nil {
		cfg.Replicas = max(cfg.Replicas, c.CachedInfo().Config.Replicas)
	}
	c, err := q.js.CreateOrUpdateConsumer(ctx, JobStream, cfg)
	if err != nil {
		return fmt.Errorf("queue: consumer %s: %w", Consumer, err)
	}
	q.mu.Lock()
	q.cons = c
	q.mu.Unlock()
	return nil
}

// consumer returns the workers' consumer.
func (q *Queue) consumer() jetstream.Consumer {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.cons
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
		if e := takeOver(dir, q.opts.Listen, q.emb.token, stop); e != nil {
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

// Enqueue publishes every job of jobs and returns how many jobs the server
// queued. Jobs of one host (scheme, host and port) are packed into batch
// messages of up to Options.Batch jobs (see DefaultBatch), a host's batch
// published when it is full and the rest at the end; a job whose URL does
// not parse, or a batch of one, is published as a message of its own.
// A message's subject is its host and key (a job's Key, a batch's hash):
// a URL whose job, or a batch whose every job, is still pending (queued,
// in flight, or handed back) is not queued twice, and dup counts the jobs
// so refused, and the URLs given more than once to this call; a URL whose job
// is done is queued again, for a recrawl.
func (q *Queue) Enqueue(ctx context.Context, jobs iter.Seq[Job]) (n, dup int, err error) {
	const window = 256 // publishes in flight at once
	type sent struct {
		f    jetstream.PubAckFuture
		jobs int
	}
	var pending []sent
	settle := func(all bool) error {
		for len(pending) > 0 && (all || len(pending) >= window) {
			p := pending[0]
			select {
			case <-p.f.Ok():
				n += p.jobs
			case err := <-p.f.Err():
				if isPending(err) {
					dup += p.jobs
					break
				}
				return fmt.Errorf("queue: publishing %s: %w", p.f.Msg().Subject, err)
			case <-ctx.Done():
				return ctx.Err()
			}
			pending = pending[1:]
		}
		return nil
	}
	publish := func(subject string, data []byte, count int) error {
		f, err := q.js.PublishAsync(subject, data)
		if err != nil {
			return fmt.Errorf("queue: publishing: %w", err)
		}
		pending = append(pending, sent{f, count})
		return settle(false)
	}
	flush := func(bs []*openBatch) error {
		for _, b := range bs {
			subject, data := b.message()
			if err := publish(subject, data, len(b.jobs)); err != nil {
				return err
			}
		}
		return nil
	}
	pk := &packer{max: q.opts.batch(), open: map[string]*openBatch{}}
	// The URLs this call packed into batches, so that one given twice is
	// folded as the server folds a job still pending: by the first 16
	// bytes of its key (a collision among fewer than 2^50 URLs is
	// unlikely past reckoning), some 40 bytes a URL.
	packed := map[[16]byte]struct{}{}
	for j := range jobs {
		data, err := j.encode()
		if err != nil {
			return n, dup, err
		}
		u, perr := parser.Parse(j.URL)
		if pk.max <= 1 || perr != nil || len(u.Host) > maxHost || len(data) > maxJobSize/2 {
			if err := publish(JobSubjectOf(j.URL), data, 1); err != nil {
				return n, dup, err
			}
			continue
		}
		key := Key(j.URL)
		var k [16]byte
		hex.Decode(k[:], []byte(key[:32]))
		if _, ok := packed[k]; ok {
			dup++
			continue
		}
		packed[k] = struct{}{}
		ready, _ := pk.add(turnKey(u), key, data)
		if err := flush(ready); err != nil {
			return n, dup, err
		}
	}
	if err := flush(pk.rest()); err != nil {
		return n, dup, err
	}
	return n, dup, settle(true)
}

// JobSubjectOf is the subject of the job of rawURL:
// "fetch.jobs.<host>.<key>", host the hex of the first 8 bytes of the
// SHA-256 of its "scheme://host:port" (lower case; "scheme:" for a URL
// without a host), key its Key. A host's jobs share a subject prefix,
// so that its queue can be counted and read apart from the others'.
func JobSubjectOf(rawURL string) string {
	hk := rawURL
	if u, err := parser.Parse(rawURL); err == nil {
		hk = turnKey(u)
	}
	return JobSubject + "." + hostHash(hk) + "." + Key(rawURL)
}

// Stats is the state of the queue.
type Stats struct {
	Queued   uint64 `json:"queued"`    // jobs not yet delivered (or handed back)
	InFlight int    `json:"in_flight"` // jobs delivered and not yet acknowledged
	Done     uint64 `json:"done"`      // jobs fetched and stored
	Failed   uint64 `json:"failed"`    // jobs that failed for good, recorded
	// Crawl is the fleet crawl's frontier, when a crawl was started.
	Crawl *CrawlStats `json:"crawl,omitempty"`
}

// CrawlStats is the state of the fleet crawl's frontier.
type CrawlStats struct {
	Seen       uint64 `json:"seen"`                 // URLs the current crawl queued
	Queued     uint64 `json:"queued"`               // links not yet taken by a worker
	InFlight   int    `json:"in_flight"`            // links taken and not yet done
	Generation int    `json:"generation,omitempty"` // the current crawl's (Crawl.Generation)
}

// Stats reports the queue's progress. Queued and InFlight are the
// consumer's counts: jobs not yet delivered, and jobs delivered and not yet
// acknowledged (handed back for later included). The stream's count of
// messages is not used: after a leader fails over it can hold jobs that
// were acknowledged, for a while or for good.
//
// A server that is settling (a leader being elected, a stream moving to
// more replicas) is asked again, for up to 30 seconds.
func (q *Queue) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	err := patiently(ctx, func(ctx context.Context) error {
		var err error
		s, err = q.statsOnce(ctx)
		return err
	})
	return s, err
}

func (q *Queue) statsOnce(ctx context.Context) (Stats, error) {
	var s Stats
	ci, err := q.consumer().Info(ctx)
	if err != nil {
		return s, fmt.Errorf("queue: %w", err)
	}
	s.Queued = ci.NumPending
	s.InFlight = ci.NumAckPending
	if s.Done, err = q.count(ctx, ResultSubject+".done.>"); err != nil {
		return s, err
	}
	if s.Failed, err = q.count(ctx, ResultSubject+".failed.>"); err != nil {
		return s, err
	}
	bd, bf, err := q.batchCounts(ctx)
	if err != nil {
		return s, err
	}
	s.Done += bd
	s.Failed += bf
	s.Crawl, err = q.crawlStats(ctx)
	return s, err
}

// errNoSlot says a job's host has every lease taken.
var errNoSlot = errors.New("every connection slot to the host is taken")

// isPending reports whether a publish of a job was refused because the
// job of the same URL is still in the stream.
func isPending(err error) bool {
	return err != nil && strings.Contains(err.Error(), "maximum messages per subject exceeded")
}

// count returns the number of results on the subjects of filter: what
// an ordered consumer of them has pending before it takes any.
func (q *Queue) count(ctx context.Context, filter string) (uint64, error) {
	c, err := q.js.OrderedConsumer(ctx, ResultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}})
	if err != nil {
		return 0, fmt.Errorf("queue: counting results: %w", err)
	}
	ci, err := c.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("queue: counting results: %w", err)
	}
	return ci.NumPending, nil
}

// publishResult publishes rec on the results stream, on the subject of
// its outcome and key; its message id (the key and the job's sequence)
// stores it once when a redelivered job publishes it again.
func (q *Queue) publishResult(ctx context.Context, key string, rec Record) error {
	outcome := "done"
	if rec.Status != 0 {
		outcome = "failed"
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	id := fmt.Sprintf("%s.%d", key, rec.Seq)
	if rec.Crawl {
		id = "crawl." + id // a sequence of FETCH_CRAWL, not FETCH_JOBS
	}
	_, err = q.js.Publish(ctx, ResultSubject+"."+outcome+"."+key, data, jetstream.WithMsgID(id))
	return err
}

// batchCounts sums the done and failed records of the batch messages of
// the results stream, from the counts in their subjects.
func (q *Queue) batchCounts(ctx context.Context) (done, failed uint64, err error) {
	info, err := q.results.Info(ctx, jetstream.WithSubjectFilter(batchResults+".>"))
	if err != nil {
		return 0, 0, fmt.Errorf("queue: counting results: %w", err)
	}
	for subject, msgs := range info.State.Subjects {
		var d, f uint64
		t := strings.Split(subject, ".")
		if len(t) != 6 {
			continue
		}
		d, _ = strconv.ParseUint(t[4], 10, 32)
		f, _ = strconv.ParseUint(t[5], 10, 32)
		done += d * msgs
		failed += f * msgs
	}
	return done, failed, nil
}

// isTimeout reports whether err is a request's timeout.
func isTimeout(err error) bool {
	return errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)
}
