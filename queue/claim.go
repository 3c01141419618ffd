package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// ClaimBucket is the key-value bucket of the jobs' claims: which delivery
// of a job may commit its result.
const ClaimBucket = "FETCH_CLAIMS"

// errFenced says a job was taken over by a later delivery: the worker
// holding an earlier one must not commit it.
var errFenced = errors.New("the job was delivered again to another worker since: this delivery may not commit")

// claim records that this delivery of a job holds it, superseding any
// earlier delivery (a worker paused or cut off past AckWait whose job went
// to another): it returns the revision written, which commit must find
// still the last.
func (q *Queue) claim(ctx context.Context, key string, seq uint64, worker string) (uint64, error) {
	rev, err := q.claims.Put(ctx, q.jobKey(key, seq), []byte(worker))
	if err != nil {
		return 0, fmt.Errorf("queue: claiming job %d: %w", seq, err)
	}
	return rev, nil
}

// commit is a job's commit point: it succeeds only when the claim of rev
// is still the job's last (rev 0: when no delivery claimed it, the case
// of a first delivery, which claims nothing, so that a job delivered once
// costs one write), and returns errFenced when a later delivery claimed
// it since. The write is a compare-and-set on the server; on servers
// before 2.11 the bucket has one replica, on which it is exclusive (see
// exclusiveCreate).
func (q *Queue) commit(ctx context.Context, key string, seq uint64, rev uint64, worker string) error {
	var err error
	value := []byte("committed by " + worker)
	if rev == 0 {
		_, err = q.claims.Create(ctx, q.jobKey(key, seq), value)
	} else {
		_, err = q.claims.Update(ctx, q.jobKey(key, seq), value, rev)
	}
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
		return errFenced
	}
	if err != nil {
		return fmt.Errorf("queue: committing job %d: %w", seq, err)
	}
	return nil
}
