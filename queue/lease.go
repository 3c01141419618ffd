package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// leases bounds the connections to each host across every worker, with one
// key per slot in the FETCH_HOSTS bucket.
type leases struct {
	kv      jetstream.KeyValue
	owner   string
	perHost int
	ttl     time.Duration

	mu     sync.Mutex
	spare  map[string][]*lease     // held, by host:port, for the next job of the host (see park)
	mine   map[string]map[int]bool // the slots this worker holds, by host:port: not asked for again
	offset int                     // the slot this worker asks for first, so that workers spread
	seeded bool
}

// linger is how long a parked slot waits for the next job of its host
// before reap frees it: long enough for the worker to pull its next
// message (a round trip), so that jobs of one host coming message after
// message keep their slots rather than free and take them again (two
// writes to a replicated bucket), short enough that a slot does not sit
// idle while another worker waits for it.
const linger = 250 * time.Millisecond

// lease is one slot held: the key and the revision this worker wrote.
type lease struct {
	l       *leases
	key     string
	host    string // the host:port
	slot    int
	mu      sync.Mutex
	rev     uint64
	written time.Time // when rev was written
	lost    bool      // found taken by another worker
	parked  time.Time // when it was last parked
}

// hostKey makes a bucket key of a host:port: the hex of its SHA-256's
// first 16 bytes, so that every key is short whatever the host (a key
// beyond NATS's 4,096-byte control line drops the connection) and within
// the characters a key may hold.
func hostKey(hostport string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(hostport)))
	return "h" + hex.EncodeToString(sum[:16])
}

// acquire takes a free slot to hostport, or returns errNoSlot. It asks
// for the slots this worker does not hold, from its own first one on: a
// worker's slots taken one after the other cost a write each, not one
// for every slot before.
func (l *leases) acquire(ctx context.Context, hostport string) (*lease, error) {
	base := hostKey(hostport)
	l.mu.Lock()
	if !l.seeded {
		l.offset, l.seeded = rand.IntN(max(l.perHost, 1)), true
	}
	first := l.offset
	l.mu.Unlock()
	for i := range l.perHost {
		k := (first + i) % l.perHost
		if !l.take(hostport, k) {
			continue // this worker's already
		}
		key := fmt.Sprintf("%s.%d", base, k)
		rev, err := l.kv.Create(ctx, key, []byte(l.owner))
		if err == nil {
			return &lease{l: l, key: key, host: hostport, slot: k, rev: rev, written: time.Now()}, nil
		}
		l.drop(hostport, k)
		if errors.Is(err, jetstream.ErrKeyExists) {
			continue
		}
		return nil, fmt.Errorf("queue: lease %s: %w", hostport, err)
	}
	return nil, errNoSlot
}

// take marks slot k of hostport as this worker's, reporting false when it
// was already.
func (l *leases) take(hostport string, k int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mine[hostport][k] {
		return false
	}
	if l.mine == nil {
		l.mine = map[string]map[int]bool{}
	}
	if l.mine[hostport] == nil {
		l.mine[hostport] = map[int]bool{}
	}
	l.mine[hostport][k] = true
	return true
}

// drop unmarks slot k of hostport.
func (l *leases) drop(hostport string, k int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.mine[hostport], k)
	if len(l.mine[hostport]) == 0 {
		delete(l.mine, hostport)
	}
}

// renew rewrites the lease so that the bucket's TTL starts again.
func (s *lease) renew(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rev, err := s.l.kv.Update(ctx, s.key, []byte(s.l.owner), s.rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyNotFound) {
		s.lost = true
	}
	if err != nil {
		return fmt.Errorf("queue: renewing lease: %w", err)
	}
	s.rev, s.written = rev, time.Now()
	return nil
}

// release frees the slot, unless it expired and another worker took it.
func (s *lease) release(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.l.kv.Delete(ctx, s.key, jetstream.LastRevision(s.rev))
	if s.host != "" {
		s.l.drop(s.host, s.slot)
	}
}

// park keeps the lease s of hostport, whose job ended, for the next job
// of the host that waits in this worker (see unpark): a host session
// holds its slot from job to job rather than freeing and taking it again
// (a delete and a create) for each. The dispatcher frees what was parked
// longer than linger when no job of the host waits (see reap). A lease
// found lost is freed at once.
func (l *leases) park(hostport string, s *lease) bool {
	s.mu.Lock()
	lost := s.lost
	s.parked = time.Now()
	s.mu.Unlock()
	if lost {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spare == nil {
		l.spare = map[string][]*lease{}
	}
	l.spare[hostport] = append(l.spare[hostport], s)
	return true
}

// unpark returns a lease of hostport parked by an earlier job, renewed
// first when a third of the TTL has passed since it was written (a job's
// keep renews it from then on); nil when there is none, or it was lost
// meanwhile (this worker was paused past the TTL).
func (l *leases) unpark(ctx context.Context, hostport string) *lease {
	for {
		l.mu.Lock()
		list := l.spare[hostport]
		if len(list) == 0 {
			l.mu.Unlock()
			return nil
		}
		s := list[len(list)-1]
		if len(list) == 1 {
			delete(l.spare, hostport)
		} else {
			l.spare[hostport] = list[:len(list)-1]
		}
		l.mu.Unlock()
		s.mu.Lock()
		stale := time.Since(s.written) > l.ttl/3
		s.mu.Unlock()
		if !stale || s.renew(ctx) == nil {
			return s
		}
		s.release(ctx)
	}
}

// reap takes the leases parked longer than linger of the hosts for which
// want reports false (no job of theirs waits), or with want nil every
// lease parked, and calls free with each. It returns how long until the
// next parked lease is due (0 for none).
func (l *leases) reap(want func(hostport string) bool, free func(hostport string, s *lease)) (next time.Duration) {
	l.mu.Lock()
	var gone map[string][]*lease
	now := time.Now()
	for hp, list := range l.spare {
		if want != nil && want(hp) {
			continue
		}
		keep := list[:0:0]
		for _, s := range list {
			s.mu.Lock()
			due := s.parked.Add(linger)
			s.mu.Unlock()
			if want != nil && due.After(now) {
				keep = append(keep, s)
				if w := due.Sub(now); next == 0 || w < next {
					next = w
				}
				continue
			}
			if gone == nil {
				gone = map[string][]*lease{}
			}
			gone[hp] = append(gone[hp], s)
		}
		if len(keep) == 0 {
			delete(l.spare, hp)
		} else {
			l.spare[hp] = keep
		}
	}
	l.mu.Unlock()
	for hp, list := range gone {
		for _, s := range list {
			free(hp, s)
		}
	}
	return next
}

// errLeaseLost says a lease expired and another worker took its slot.
var errLeaseLost = errors.New("queue: the per-host lease expired and was taken by another worker")

// keep renews the lease every third of the TTL until ctx is done. When
// the lease is found lost (its key rewritten by another worker: this one
// was paused or cut off past the TTL), it calls lost, if set, with
// errLeaseLost and stops: the slot is another's now.
func (s *lease) keep(ctx context.Context, lost func(error)) {
	t := time.NewTicker(s.l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			err := s.renew(ctx)
			if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyNotFound) {
				if lost != nil {
					lost(errLeaseLost)
				}
				return
			}
		}
	}
}
