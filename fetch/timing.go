package fetch

import (
	"io"
	"sync"
	"time"
)

// Timing records when the phases of one fetch happened, for reports such
// as curl's --write-out times. Give a Request one made by NewTiming (every
// attempt its own): the request's dials, those of every scheme, mark the
// end of the first name lookup and the first connection made; each hop
// the Client follows is counted as a redirect; and Body, wrapped
// around the Resource's Body, marks the first byte of the body and its
// end and counts its bytes. A Timing is safe for concurrent use; its
// methods do nothing on a nil Timing.
type Timing struct {
	mu                                    sync.Mutex
	start, lookup, connect, first, finish time.Time
	redirects                             int
	bytes                                 int64
}

// NewTiming returns a Timing whose clock starts now.
func NewTiming() *Timing { return &Timing{start: time.Now()} }

// TimingReport is what a Timing recorded, as durations from its start. A
// phase that did not happen (no name was looked up: a connection was
// reused) is zero.
type TimingReport struct {
	// NameLookup is when the first name lookup ended (for an IP address,
	// at once).
	NameLookup time.Duration
	// Connect is when the first connection was made.
	Connect time.Duration
	// StartTransfer is when the first byte of the body arrived, or the
	// body ended empty.
	StartTransfer time.Duration
	// Total is when the body ended, or, for a fetch not yet over (it
	// failed, or the body was not read to its end), when Report was
	// called.
	Total time.Duration
	// Redirects counts the hops (HTTP redirects, Prospero referrals)
	// made after the first request.
	Redirects int
	// Bytes counts the body's bytes read through Body.
	Bytes int64
}

// Report returns what t has recorded so far.
func (t *Timing) Report() TimingReport {
	if t == nil {
		return TimingReport{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	since := func(m time.Time) time.Duration {
		if m.IsZero() {
			return 0
		}
		return m.Sub(t.start)
	}
	r := TimingReport{NameLookup: since(t.lookup), Connect: since(t.connect), StartTransfer: since(t.first),
		Total: since(t.finish), Redirects: t.redirects, Bytes: t.bytes}
	if t.finish.IsZero() {
		r.Total = time.Since(t.start)
	}
	return r
}

// mark sets *m to now if it is not set yet.
func (t *Timing) mark(m *time.Time) {
	if t == nil {
		return
	}
	now := time.Now()
	t.mu.Lock()
	if m.IsZero() {
		*m = now
	}
	t.mu.Unlock()
}

// looked marks the end of a name lookup.
func (t *Timing) looked() {
	if t != nil {
		t.mark(&t.lookup)
	}
}

// connected marks a connection made.
func (t *Timing) connected() {
	if t != nil {
		t.mark(&t.connect)
	}
}

// hop counts one redirect.
func (t *Timing) hop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.redirects++
	t.mu.Unlock()
}

// Body returns rc wrapped so that reading it marks the first byte, counts
// the bytes and marks the end (io.EOF or Close) in t. Closing the wrapper
// closes rc. On a nil Timing it returns rc.
func (t *Timing) Body(rc io.ReadCloser) io.ReadCloser {
	if t == nil {
		return rc
	}
	return &timedBody{rc: rc, t: t}
}

type timedBody struct {
	rc io.ReadCloser
	t  *Timing
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	t := b.t
	if n > 0 || err == io.EOF {
		now := time.Now()
		t.mu.Lock()
		if t.first.IsZero() {
			t.first = now
		}
		t.bytes += int64(n)
		if err == io.EOF && t.finish.IsZero() {
			t.finish = now
		}
		t.mu.Unlock()
	}
	return n, err
}

func (b *timedBody) Close() error {
	err := b.rc.Close()
	b.t.mark(&b.t.finish)
	return err
}
