package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/crawl"
	"github.com/rfc1738/fetch/url"
)

// The JetStream objects of a fleet crawl's frontier.
const (
	// CrawlStream holds every link a fleet crawl ever added, one message
	// a subject: the message is both the seen set's entry and the job.
	CrawlStream = "FETCH_CRAWL"
	// CrawlSubject is the subjects' prefix: ".<crawl>.<host>.<key>"
	// follows, <crawl> the crawl's generation (Crawl.Generation) and the
	// others each the hex of part of a SHA-256 (the host's
	// "scheme://host:port", the link's key); a stream of the first layout
	// has ".<host>.<key>" only (generation 0).
	CrawlSubject = "fetch.crawl"
	// CrawlConsumer is the durable pull consumer the crawling workers
	// share.
	CrawlConsumer = "FETCH_CRAWLERS"
)

// FrontierOptions says how a Frontier takes links. The zero value is
// sane.
type FrontierOptions struct {
	// Window is how many links a Frontier holds taken from the queue at
	// most (given by Next and not done, and waiting to be given): the
	// look-ahead within which Next takes hosts in turn. Zero means 64.
	Window int
	// Logf, if set, is told of each failure of the queue the frontier
	// goes on after.
	Logf func(format string, args ...any)
}

// Frontier is a fleet crawl's frontier in JetStream: a crawl.Frontier
// that every worker of the queue shares. Its seen set and its queue are
// one stream, FETCH_CRAWL, with one message a subject and "discard new
// per subject": Add publishes each link on the subject of its key, and
// the server stores it only when the subject is empty, so a key is queued
// once across the fleet (an exclusive create-if-absent on every server
// version, replicated or not: the per-subject limit is applied in order
// by each replica's store). The stream keeps the messages (limits
// retention), so a key done is never added again by the same crawl: the
// subjects hold the crawl's generation (Crawl.Generation), and a crawl
// started again after the last one ended has a seen set of its own. Links
// are added to the latest generation the Frontier has met (when opened,
// or in a link it took); a link of an earlier one taken later is dropped.
// Next pulls from the
// consumer FETCH_CRAWLERS; Done acknowledges. A worker that dies holding
// links leaves them to be delivered again after AckWait; a live one tells
// the server they are in progress.
//
// Next takes hosts in turn within the links it holds (FrontierOptions.
// Window), not across the whole queue. It is safe for concurrent use.
type Frontier struct {
	q    *Queue
	opts FrontierOptions

	mu     sync.Mutex
	gen    int // the crawl's generation: new links are added to it
	cons   jetstream.Consumer
	hosts  map[string]*frontierHost // links held, waiting to be given, by host
	ring   []*frontierHost
	next   int
	held   int                     // links waiting in hosts
	taken  map[string]*frontierMsg // given by Next, not done, by key
	closed bool
	stop   chan struct{}
	wg     sync.WaitGroup
}

type frontierHost struct {
	key    string
	msgs   []*frontierMsg
	inRing bool
}

// frontierMsg is a link taken from the queue.
type frontierMsg struct {
	msg       jetstream.Msg
	link      crawl.Link
	seq       uint64
	delivered int
}

// linkMsg is a link as a message of FETCH_CRAWL.
type linkMsg struct {
	URL      string             `json:"url"`
	Key      string             `json:"key"`
	Referrer string             `json:"referrer,omitempty"`
	Depth    int                `json:"depth,omitempty"`
	Tag      string             `json:"tag,omitempty"`
	Rel      string             `json:"rel,omitempty"`
	Kind     fetch.ResourceKind `json:"kind,omitempty"`
	Listed   bool               `json:"listed,omitempty"`
	Public   bool               `json:"public,omitempty"`
}

// OpenFrontier makes the fleet crawl's stream and consumer when missing,
// with the queue's replicas, and returns a Frontier over them. Close it
// when done: the links it holds go back to the queue at once.
func (q *Queue) OpenFrontier(ctx context.Context, opts FrontierOptions) (*Frontier, error) {
	if opts.Window <= 0 {
		opts.Window = 64
	}
	if err := q.setupCrawl(ctx); err != nil {
		return nil, err
	}
	f := &Frontier{q: q, opts: opts, hosts: map[string]*frontierHost{}, taken: map[string]*frontierMsg{}, stop: make(chan struct{})}
	c, _, err := q.crawlSettings(ctx)
	if err != nil {
		return nil, err
	}
	f.gen = c.Generation
	if err := f.recover(ctx); err != nil {
		return nil, err
	}
	f.wg.Go(f.heartbeat)
	return f, nil
}

// setupCrawl creates or updates the crawl's stream.
func (q *Queue) setupCrawl(ctx context.Context) error {
	_, err := q.stream(ctx, jetstream.StreamConfig{
		Name:        CrawlStream,
		Description: "a fleet crawl's links, one message a key: its seen set and its queue",
		// Generation 0 (the first layout, and a frontier with no crawl
		// started) has no <crawl> token.
		Subjects:  []string{CrawlSubject + ".*.*", CrawlSubject + ".*.*.*"},
		Retention: jetstream.LimitsPolicy,
		Storage:   jetstream.FileStorage,
		// One message a key, kept: a key added again, while waiting or
		// after it was done, is refused by the server.
		MaxMsgsPerSubject:    1,
		Discard:              jetstream.DiscardNew,
		DiscardNewPerSubject: true,
		MaxMsgSize:           maxJobSize,
		Replicas:             q.replicas(),
	})
	return err
}

// recover creates the crawl's consumer, or updates it, keeping replicas it
// has beyond the stream's.
func (f *Frontier) recover(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := f.q.js.Stream(ctx, CrawlStream)
	if err != nil {
		return fmt.Errorf("queue: stream %s: %w", CrawlStream, err)
	}
	cfg := jetstream.ConsumerConfig{
		Durable:       CrawlConsumer,
		Description:   "fetch workers crawling",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       f.q.opts.ackWait(),
		MaxDeliver:    f.q.opts.maxDeliver(),
		MaxAckPending: 10000,
		Replicas:      s.CachedInfo().Config.Replicas,
	}
	if c, err := f.q.js.Consumer(ctx, CrawlStream, CrawlConsumer); err == nil {
		cfg.Replicas = max(cfg.Replicas, c.CachedInfo().Config.Replicas)
	}
	c, err := f.q.js.CreateOrUpdateConsumer(ctx, CrawlStream, cfg)
	if err != nil {
		return fmt.Errorf("queue: consumer %s: %w", CrawlConsumer, err)
	}
	f.mu.Lock()
	f.cons = c
	f.mu.Unlock()
	return nil
}

// crawlSubject is the subject of a link in the crawl of generation gen:
// the generation (none for 0), its host's hash, then its key's.
func crawlSubject(gen int, l crawl.Link) string {
	h := sha256.Sum256([]byte(turnKey(l.URL)))
	k := sha256.Sum256([]byte(l.Key))
	return genSubject(gen) + "." + hex.EncodeToString(h[:8]) + "." + hex.EncodeToString(k[:])
}

// genSubject is the subjects' prefix of the crawl of generation gen.
func genSubject(gen int) string {
	if gen == 0 {
		return CrawlSubject
	}
	return CrawlSubject + "." + strconv.Itoa(gen)
}

// genFilter is the filter of the subjects of generation gen.
func genFilter(gen int) string {
	if gen == 0 {
		return CrawlSubject + ".*.*"
	}
	return genSubject(gen) + ".*.*"
}

// subjectGen is the generation of a subject of FETCH_CRAWL.
func subjectGen(subject string) int {
	t := strings.Split(subject, ".")
	if len(t) != 5 {
		return 0
	}
	g, _ := strconv.Atoi(t[2])
	return g
}

// advance makes the frontier add links to generation gen from now on,
// when it is later than the one it adds to: a crawl started again.
func (f *Frontier) advance(gen int) {
	f.mu.Lock()
	f.gen = max(f.gen, gen)
	f.mu.Unlock()
}

// turnKey is the host a link is taken in turn under: "scheme://host:port",
// or "scheme:" without a host.
func turnKey(u *url.URL) string {
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Scheme + "://" + strings.ToLower(u.HostPort())
}

// Add publishes the links whose key no worker added before, and reports
// how many were new. A failure of the queue is tried again for up to a
// minute, then returned.
func (f *Frontier) Add(ctx context.Context, links ...crawl.Link) (int, error) {
	todo := links
	var retry backoff
	deadline := time.Now().Add(time.Minute)
	n := 0
	for {
		added, rest, err := f.add(ctx, todo)
		n += added
		if err == nil {
			return n, nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return n, fmt.Errorf("queue: adding links to %s: %w", CrawlStream, err)
		}
		d := retry.next()
		f.logf("adding links to the crawl: %v; again in %v", err, d.Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case <-time.After(d):
		}
		todo = rest
	}
}

// add publishes links, and returns how many the server stored, and the
// links to publish again when a publish failed otherwise than by being
// seen before.
func (f *Frontier) add(ctx context.Context, links []crawl.Link) (int, []crawl.Link, error) {
	futures := make([]jetstream.PubAckFuture, 0, len(links))
	sent := make([]crawl.Link, 0, len(links))
	f.mu.Lock()
	gen := f.gen
	f.mu.Unlock()
	for i, l := range links {
		m := linkMsg{URL: l.URL.String(), Key: l.Key, Depth: l.Depth, Tag: l.Tag, Rel: l.Rel, Kind: l.Kind, Listed: l.Listed, Public: l.Public}
		if l.Referrer != nil {
			m.Referrer = l.Referrer.String()
		}
		data, err := json.Marshal(m)
		if err != nil {
			return 0, nil, err
		}
		if len(data) > maxJobSize {
			f.logf("a link of %d bytes not added to the crawl: %s", len(data), l.URL.Redacted())
			continue
		}
		fu, err := f.q.js.PublishAsync(crawlSubject(gen, l), data)
		if err != nil {
			n, rest, _ := f.settle(ctx, futures, sent)
			return n, append(rest, links[i:]...), err
		}
		futures = append(futures, fu)
		sent = append(sent, l)
	}
	return f.settle(ctx, futures, sent)
}

// settle waits for the acknowledgements of futures, published for links
// in order, and returns how many were stored and the links to publish
// again.
func (f *Frontier) settle(ctx context.Context, futures []jetstream.PubAckFuture, links []crawl.Link) (int, []crawl.Link, error) {
	n := 0
	var rest []crawl.Link
	var first error
	for i, fu := range futures {
		select {
		case <-fu.Ok():
			n++
		case err := <-fu.Err():
			if isPending(err) {
				break // seen before
			}
			if first == nil {
				first = err
			}
			rest = append(rest, links[i])
		case <-ctx.Done():
			return n, nil, ctx.Err()
		}
	}
	return n, rest, first
}

// Next gives the next link held, taking hosts in turn; it tops up the
// links held from the queue first. With no link held and none taken and
// not done, it waits for one, until no link is left anywhere (queued, or
// taken by any worker and not done): then ok is false. A failure of the
// queue is logged and tried again, never returned: only ctx ends the
// wait.
func (f *Frontier) Next(ctx context.Context) (crawl.Link, bool, error) {
	if err := ctx.Err(); err != nil {
		return crawl.Link{}, false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return crawl.Link{}, false, errors.New("queue: frontier closed")
	}
	if f.held < f.opts.Window/2+1 {
		f.pull(ctx, 0)
	}
	if m := f.give(); m != nil {
		return m.link, true, nil
	}
	if len(f.taken) > 0 {
		// Links of ours are in flight: their pages may add more, and
		// the crawl asks again when one is done.
		return crawl.Link{}, false, nil
	}
	var retry backoff
	idle := 0
	for {
		got, err := f.pull(ctx, 250*time.Millisecond)
		if ctx.Err() != nil {
			return crawl.Link{}, false, ctx.Err()
		}
		if got > 0 {
			return f.give().link, true, nil
		}
		if err != nil {
			d := retry.next()
			f.logf("taking links: %v; again in %v", err, d.Round(time.Millisecond))
			f.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(d):
			}
			if err := f.recover(ctx); err != nil && ctx.Err() == nil {
				f.logf("recreating the consumer %s: %v", CrawlConsumer, err)
			}
			f.mu.Lock()
			continue
		}
		retry = backoff{}
		// Two looks a pull apart, so that a link just published is not
		// missed.
		if f.idle(ctx) {
			idle++
		} else {
			idle = 0
		}
		if idle >= 2 {
			return crawl.Link{}, false, nil
		}
	}
}

// pull takes up to the window's free room of links from the queue: those
// there now, or with wait, the first within wait and those there then. It
// returns how many it took.
func (f *Frontier) pull(ctx context.Context, wait time.Duration) (int, error) {
	room := f.opts.Window - f.held - len(f.taken)
	if room <= 0 {
		return 0, nil
	}
	got := 0
	take := func(b jetstream.MessageBatch) error {
		for msg := range b.Messages() {
			f.hold(msg)
			got++
		}
		if err := b.Error(); err != nil && !isTimeout(err) && !errors.Is(err, nats.ErrTimeout) {
			return err
		}
		return nil
	}
	if wait > 0 {
		b, err := f.cons.Fetch(1, jetstream.FetchMaxWait(wait))
		if err != nil {
			return 0, err
		}
		if err := take(b); err != nil || got == 0 {
			return got, err
		}
		room--
	}
	if room > 0 {
		b, err := f.cons.FetchNoWait(room)
		if err != nil {
			return got, err
		}
		if err := take(b); err != nil {
			return got, err
		}
	}
	return got, nil
}

// hold keeps a message taken from the queue until Next gives it. One that
// is no link is terminated.
func (f *Frontier) hold(msg jetstream.Msg) {
	meta, err := msg.Metadata()
	if err != nil {
		msg.Term()
		return
	}
	var m linkMsg
	if err := json.Unmarshal(msg.Data(), &m); err != nil || m.URL == "" || m.Key == "" {
		f.logf("terminating link %d of %s: not a link", meta.Sequence.Stream, CrawlStream)
		msg.Term()
		return
	}
	u, err := url.ParseLenient(m.URL)
	if err != nil {
		f.logf("terminating link %d of %s: %v", meta.Sequence.Stream, CrawlStream, err)
		msg.Term()
		return
	}
	l := crawl.Link{URL: u, Key: m.Key, Depth: m.Depth, Tag: m.Tag, Rel: m.Rel, Kind: m.Kind, Listed: m.Listed, Public: m.Public}
	if m.Referrer != "" {
		l.Referrer, _ = url.ParseLenient(m.Referrer)
	}
	switch gen := subjectGen(msg.Subject()); {
	case gen < f.gen:
		// A link of a crawl before the one started since: that crawl
		// had ended (a crawl is started again only then), so this is
		// a late add of a worker that had not seen the new one yet.
		f.logf("dropping link %d of %s: of crawl %d, not of crawl %d", meta.Sequence.Stream, CrawlStream, gen, f.gen)
		msg.Ack()
		return
	case gen > f.gen:
		f.gen = gen // a crawl started since: its pages' links go to it
	}
	if _, dup := f.taken[l.Key]; dup {
		// Delivered again while ours (after a lost acknowledgement of
		// progress): the copy we hold answers for both.
		return
	}
	hk := turnKey(u)
	h := f.hosts[hk]
	if h == nil {
		h = &frontierHost{key: hk}
		f.hosts[hk] = h
	}
	h.msgs = append(h.msgs, &frontierMsg{msg: msg, link: l, seq: meta.Sequence.Stream, delivered: int(meta.NumDelivered)})
	f.held++
	if !h.inRing {
		h.inRing = true
		f.ring = append(f.ring, h)
	}
}

// give takes the next held link, hosts in turn, and marks it taken.
func (f *Frontier) give() *frontierMsg {
	for len(f.ring) > 0 {
		if f.next >= len(f.ring) {
			f.next = 0
		}
		h := f.ring[f.next]
		m := h.msgs[0]
		h.msgs = h.msgs[1:]
		f.held--
		if len(h.msgs) == 0 {
			h.inRing = false
			f.ring = append(f.ring[:f.next], f.ring[f.next+1:]...)
			delete(f.hosts, h.key)
		} else {
			f.next++
		}
		if _, dup := f.taken[m.link.Key]; dup {
			continue
		}
		f.taken[m.link.Key] = m
		return m
	}
	return nil
}

// idle reports whether no link is left anywhere: none queued, none taken
// by any worker and not done (the consumer's counts).
func (f *Frontier) idle(ctx context.Context) bool {
	ci, err := f.cons.Info(ctx)
	return err == nil && ci.NumPending == 0 && ci.NumAckPending == 0
}

// Done acknowledges the link of key, taken by Next. When ctx is done
// already (the crawl stopped, its links perhaps not all added) the link
// goes back to the queue instead, to be crawled again. An acknowledgement
// that fails is logged: the link is then delivered again, and crawled
// again.
func (f *Frontier) Done(ctx context.Context, key string) error {
	f.mu.Lock()
	m := f.taken[key]
	delete(f.taken, key)
	f.mu.Unlock()
	if m == nil {
		return nil
	}
	if ctx.Err() != nil {
		m.msg.Nak()
		return nil
	}
	actx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := m.msg.DoubleAck(actx); err != nil {
		f.logf("acknowledging link %d of %s: %v", m.seq, CrawlStream, err)
	}
	return nil
}

// taken returns what the frontier knows of the link of key, taken by Next
// and not done: its sequence in the stream and its deliveries.
func (f *Frontier) takenLink(key string) (seq uint64, delivered int, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.taken[key]
	if m == nil {
		return 0, 0, false
	}
	return m.seq, m.delivered, true
}

// doneSeq returns the sequence of the message of l in the crawl the
// frontier adds to, for a link done already (the crawl visits a failed
// page after it is done); 0 when it cannot be had.
func (f *Frontier) doneSeq(ctx context.Context, l crawl.Link) uint64 {
	f.mu.Lock()
	gen := f.gen
	f.mu.Unlock()
	s, err := f.q.js.Stream(ctx, CrawlStream)
	if err != nil {
		return 0
	}
	m, err := s.GetLastMsgForSubject(ctx, crawlSubject(gen, l))
	if err != nil {
		return 0
	}
	return m.Sequence
}

// heartbeat tells the server every third of AckWait that the links held
// are in progress.
func (f *Frontier) heartbeat() {
	t := time.NewTicker(f.q.opts.ackWait() / 3)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
		}
		f.mu.Lock()
		var msgs []jetstream.Msg
		for _, m := range f.taken {
			msgs = append(msgs, m.msg)
		}
		for _, h := range f.hosts {
			for _, m := range h.msgs {
				msgs = append(msgs, m.msg)
			}
		}
		f.mu.Unlock()
		for _, m := range msgs {
			m.InProgress()
		}
	}
}

// Close hands every link the frontier holds back to the queue, taken or
// not, and stops. It does not close the Queue.
func (f *Frontier) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	close(f.stop)
	for _, m := range f.taken {
		m.msg.Nak()
	}
	for _, h := range f.hosts {
		for _, m := range h.msgs {
			m.msg.Nak()
		}
	}
	f.taken, f.hosts, f.ring, f.held = map[string]*frontierMsg{}, map[string]*frontierHost{}, nil, 0
	f.mu.Unlock()
	f.wg.Wait()
	return nil
}

func (f *Frontier) logf(format string, args ...any) {
	if f.opts.Logf != nil {
		f.opts.Logf(format, args...)
	}
}

var _ crawl.Frontier = (*Frontier)(nil)
