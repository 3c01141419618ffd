package fetch

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"

	"github.com/rfc1738/fetch/url"
)

// A scheduler is the single goroutine of a Batch that owns its queues: it
// reads URLs, files each in its host's queue, and hands the head of a
// queue to a worker whenever a global slot is free and the host is below
// its cap and its rate. Workers report back on done; nothing else is
// shared. A worker that is done waits for the next job instead of ending,
// so that a batch of many URLs starts Parallel goroutines, not one a URL
// (each would grow its stack anew through the handler's and fn's calls).
type scheduler struct {
	b   *Batch
	ctx context.Context
	g   *errgroup.Group
	fn  func(ctx context.Context, r *Result) error

	hosts    map[hostID]*hostQueue
	ready    readyHeap       // hosts that may start a job now, earliest head first
	direct   []*job          // deliveries that need no host slot
	inflight map[string]*job // leaders by dedupe key
	done     chan *job       // a worker finished
	jobs     chan *job       // jobs for idle workers
	idle     int             // workers waiting on jobs
	wake     chan *hostQueue // a host's rate allows it again
	quit     chan struct{}   // closed when the loop returns
	pending  int             // URLs read and not yet finished
	active   int             // workers running
	parallel int
}

type hostQueue struct {
	id       hostID
	queue    []*job
	active   int
	cap      int // the transfers it may have in progress; 0: no cap
	lim      *rate.Limiter
	sleeping bool // waiting for the rate limiter
	listed   bool // in the ready list
}

// job is one URL to fetch, or a delivery of results that need no fetch
// (a URL that did not parse, the followers of a shared fetch).
type job struct {
	r         *Result
	host      *hostQueue
	dkey      string
	followers []*Result
	err       error     // the leader's final error, for its followers
	deliver   []*Result // for a delivery job
	shared    error     // the error delivered with them
	count     int       // how many URLs this job finishes

	res Result // r's, for a URL read: one allocation for both
}

// newJob returns the job for the URL raw, read at index i.
func newJob(i int, raw string) *job {
	j := &job{count: 1, res: Result{Index: i, Input: raw}}
	j.r = &j.res
	return j
}

// index is the position of the job's (first) URL in the sequence.
func (j *job) index() int {
	if j.r != nil {
		return j.r.Index
	}
	return j.deliver[0].Index
}

// readyHeap orders hosts by the position of the URL at the head of their
// queue.
type readyHeap []*hostQueue

func (h readyHeap) Len() int           { return len(h) }
func (h readyHeap) Less(i, j int) bool { return h[i].queue[0].index() < h[j].queue[0].index() }
func (h readyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *readyHeap) Push(x any)        { *h = append(*h, x.(*hostQueue)) }
func (h *readyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

func newScheduler(b *Batch, ctx context.Context, g *errgroup.Group, fn func(context.Context, *Result) error) *scheduler {
	par := b.parallel()
	g.SetLimit(par)
	return &scheduler{
		b: b, ctx: ctx, g: g, fn: fn,
		hosts:    make(map[hostID]*hostQueue),
		inflight: make(map[string]*job),
		done:     make(chan *job, par),
		jobs:     make(chan *job, par),
		wake:     make(chan *hostQueue),
		quit:     make(chan struct{}),
		parallel: par,
	}
}

// loop runs until every URL from in has finished, or the context ends.
func (s *scheduler) loop(in <-chan *job) error {
	defer close(s.quit)
	parser := s.b.parser()
	input := func(j *job, ok bool) {
		if !ok {
			in = nil
			return
		}
		s.pending++
		s.add(j, parser)
	}
	for {
		s.dispatch()
		src := in
		if s.pending >= batchWindow-batchReadAhead {
			src = nil
		}
		if in == nil && s.pending == 0 {
			return nil
		}
		// The events come one at a time on one channel or another: a
		// look at each by itself first is far cheaper than the select
		// over all four, which is left for when none is ready.
		if s.ctx.Err() != nil {
			return nil
		}
		select {
		case j := <-s.done:
			s.finish(j)
			continue
		default:
		}
		select {
		case h := <-s.wake:
			s.woke(h)
			continue
		default:
		}
		if src != nil {
			select {
			case j, ok := <-src:
				input(j, ok)
				continue
			default:
			}
		}
		select {
		case j, ok := <-src:
			input(j, ok)
		case j := <-s.done:
			s.finish(j)
		case h := <-s.wake:
			s.woke(h)
		case <-s.ctx.Done():
			return nil
		}
	}
}

// woke takes back a host whose rate allows it a job again.
func (s *scheduler) woke(h *hostQueue) {
	h.sleeping = false
	s.mark(h)
}

// add files a newly read URL: a parse failure is delivered at once, a
// duplicate of a URL in flight waits for it, the rest join their host's
// queue.
func (s *scheduler) add(j *job, p url.Parser) {
	r := j.r
	u, err := p.Parse(r.Input)
	if err != nil {
		r.Err = &Error{Op: "fetch", URL: redactedInput(err, r.Input), Kind: Malformed, Err: err}
		s.direct = append(s.direct, &job{deliver: []*Result{r}, shared: r.Err, count: 1})
		return
	}
	r.URL = u
	if !s.b.FetchDuplicates {
		j.dkey = dedupeKey(u)
		if lead, ok := s.inflight[j.dkey]; ok {
			lead.followers = append(lead.followers, r)
			return
		}
		s.inflight[j.dkey] = j
	}
	id := hostOf(u)
	h := s.hosts[id]
	if h == nil {
		hd, _ := s.b.Client.Handler(u.Scheme)
		h = &hostQueue{id: id, cap: s.b.hostCap(hd, u)}
		lim := s.b.Rate
		if s.b.HostRate != nil {
			if hr := s.b.HostRate(hostKey(u)); hr != 0 {
				lim = hr
			}
		}
		switch {
		case s.b.Limiter != nil:
			h.lim = s.b.Limiter(hostKey(u))
		case lim != 0 && lim != rate.Inf:
			h.lim = rate.NewLimiter(lim, 1)
		}
		s.hosts[id] = h
	}
	j.host = h
	h.queue = append(h.queue, j)
	s.mark(h)
}

// eligible reports whether h may start a job now.
func (s *scheduler) eligible(h *hostQueue) bool {
	return len(h.queue) > 0 && (h.cap == 0 || h.active < h.cap) && !h.sleeping
}

// mark puts h on the ready list when it may start a job.
func (s *scheduler) mark(h *hostQueue) {
	if !h.listed && s.eligible(h) {
		h.listed = true
		heap.Push(&s.ready, h)
	}
}

// dispatch starts workers while global slots are free, taking the
// earliest URL read whose host may start one: URLs start in the order read
// but for those held back by their host's cap or rate.
func (s *scheduler) dispatch() {
	for s.active < s.parallel && s.ctx.Err() == nil {
		if len(s.direct) > 0 && (len(s.ready) == 0 || s.direct[0].index() < s.ready[0].queue[0].index()) {
			j := s.direct[0]
			s.direct[0] = nil
			s.direct = s.direct[1:]
			s.start(j)
			continue
		}
		if len(s.ready) == 0 {
			return
		}
		h := heap.Pop(&s.ready).(*hostQueue)
		h.listed = false
		if !s.eligible(h) {
			continue
		}
		if h.lim != nil {
			res := h.lim.Reserve()
			if d := res.Delay(); d > 0 {
				res.Cancel()
				h.sleeping = true
				time.AfterFunc(d, func() {
					select {
					case s.wake <- h:
					case <-s.quit:
					}
				})
				continue
			}
		}
		j := h.queue[0]
		h.queue[0] = nil
		h.queue = h.queue[1:]
		h.active++
		s.start(j)
		s.mark(h) // back in the heap, by its next URL, if it may go on
	}
}

// start hands j to an idle worker, or to a new one.
func (s *scheduler) start(j *job) {
	s.active++
	if s.idle > 0 {
		s.idle--
		s.jobs <- j // never blocks: jobs holds Parallel
		return
	}
	s.g.Go(func() error {
		j := j // reassigned below: a copy, so the parameter stays off the heap
		for {
			var err error
			if j.deliver != nil {
				err = s.deliver(j)
			} else {
				err = s.work(j)
			}
			s.done <- j
			if err != nil {
				return err
			}
			select {
			case j = <-s.jobs:
			case <-s.quit:
				return nil
			}
		}
	})
}

// finish accounts for a finished job, whose worker is now idle; a
// leader's followers are then delivered its outcome.
func (s *scheduler) finish(j *job) {
	s.active--
	s.idle++
	s.pending -= j.count
	if h := j.host; h != nil {
		h.active--
		s.mark(h)
		if h.active == 0 && len(h.queue) == 0 && !h.sleeping &&
			(h.lim == nil || h.lim.TokensAt(time.Now()) >= float64(h.lim.Burst())) {
			delete(s.hosts, h.id) // an idle host costs nothing
		}
	}
	if j.dkey != "" {
		delete(s.inflight, j.dkey)
		if len(j.followers) > 0 {
			for _, f := range j.followers {
				f.Shared = true
			}
			s.direct = append(s.direct, &job{deliver: j.followers, shared: j.err, count: len(j.followers)})
		}
	}
}

// deliver calls fn for results that need no fetch.
func (s *scheduler) deliver(j *job) error {
	for _, r := range j.deliver {
		r.Err = j.shared
		if err := s.fn(s.ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// work makes the attempts at one URL and delivers the outcome.
func (s *scheduler) work(j *job) error {
	r := j.r
	start := time.Now()
	for {
		req, err := s.attempt(r)
		if err == nil {
			return nil
		}
		if s.ctx.Err() != nil {
			err = canceled(s.ctx, err)
		}
		var nr noRetry
		wait, again := s.b.Retry.WaitAfter(req, r.Attempt+1, err, time.Since(start))
		if errors.As(err, &nr) || s.ctx.Err() != nil || !again {
			j.err = err
			r.Err = err
			return s.fn(s.ctx, r)
		}
		if s.b.OnRetry != nil {
			s.b.OnRetry(r, err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-s.ctx.Done():
			t.Stop()
		}
		// A retry is a request like any other: it waits for its host's
		// turn under the rate.
		if l := j.host.lim; l != nil && s.ctx.Err() == nil {
			l.Wait(s.ctx)
		}
		if s.ctx.Err() != nil {
			j.err = canceled(s.ctx, err)
			r.Err = j.err
			return s.fn(s.ctx, r)
		}
		r.Attempt++
	}
}

// attempt fetches r once and hands the resource to fn. It returns the
// request made, for the retry policy.
func (s *scheduler) attempt(r *Result) (req *Request, err error) {
	if s.b.Request != nil {
		if req, err = s.b.Request(r); err != nil {
			return nil, err
		}
		if req.URL == nil {
			req.URL = r.URL
		}
	} else {
		req = &Request{URL: r.URL}
	}
	ctx := s.ctx
	if s.b.AttemptTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.b.AttemptTimeout)
		defer cancel()
	}
	do := s.b.Client.Do
	if s.b.Do != nil {
		do = s.b.Do
	}
	res, err := do(ctx, req)
	if err != nil {
		return req, err
	}
	r.Resource = res
	err = s.fn(ctx, r)
	res.Body.Close()
	r.Resource = nil
	return req, err
}

// canceled reports a failure caused by the batch's end as such.
func canceled(ctx context.Context, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	cause := ctx.Err()
	if c := context.Cause(ctx); c != cause {
		cause = fmt.Errorf("%w (%w)", cause, c)
	}
	return &Error{Op: "fetch", Kind: KindOf(ctx.Err()), Err: cause}
}
