package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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
}

// lease is one slot held: the key and the revision this worker wrote.
type lease struct {
	l   *leases
	key string
	mu  sync.Mutex
	rev uint64
}

// hostKey makes a bucket key of a host:port: the hex of its SHA-256's
// first 16 bytes, so that every key is short whatever the host (a key
// beyond NATS's 4,096-byte control line drops the connection) and within
// the characters a key may hold.
func hostKey(hostport string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(hostport)))
	return "h" + hex.EncodeToString(sum[:16])
}

// acquire takes a free slot to hostport, or returns errNoSlot.
func (l *leases) acquire(ctx context.Context, hostport string) (*lease, error) {
	base := hostKey(hostport)
	for k := range l.perHost {
		key := fmt.Sprintf("%s.%d", base, k)
		rev, err := l.kv.Create(ctx, key, []byte(l.owner))
		if errors.Is(err, jetstream.ErrKeyExists) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("queue: lease %s: %w", hostport, err)
		}
		return &lease{l: l, key: key, rev: rev}, nil
	}
	return nil, errNoSlot
}

// renew rewrites the lease so that the bucket's TTL starts again.
func (s *lease) renew(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rev, err := s.l.kv.Update(ctx, s.key, []byte(s.l.owner), s.rev)
	if err != nil {
		return fmt.Errorf("queue: renewing lease: %w", err)
	}
	s.rev = rev
	return nil
}

// release frees the slot, unless it expired and another worker took it.
func (s *lease) release(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.l.kv.Delete(ctx, s.key, jetstream.LastRevision(s.rev))
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
