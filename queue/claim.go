package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ClaimBucket is the key-value bucket of the jobs' claims: which delivery
// of a job may commit its result.
const ClaimBucket = "FETCH_CLAIMS"

// errFenced says a job was taken over by a later delivery: the worker
// holding an earlier one must not commit it.
var errFenced = errors.New("the job was delivered again to another worker since: this delivery may not commit")

// errCommitted says a job was committed by an earlier delivery a moment
// ago: its worker is storing it and acknowledging it (an acknowledgement
// of an earlier delivery counts), so this delivery is to wait, not to
// fetch it again.
var errCommitted = errors.New("the job was committed by an earlier delivery, whose worker acknowledges it")

// committedPrefix begins the value of a committed job's key.
const committedPrefix = "committed by "

// claim records that this delivery of a job holds it, superseding any
// earlier delivery (a worker paused or cut off past AckWait whose job went
// to another): it returns the revision written, which commit must find
// still the last. A job an earlier delivery committed less than two
// AckWaits ago is not claimed (errCommitted): that worker, paused past
// AckWait after its commit, or resumed and committing before this
// delivery claimed, stores and acknowledges it, and a claim over its
// commit would store the job a second time in another store. A commit
// older than that is taken over: its worker died before acknowledging.
func (q *Queue) claim(ctx context.Context, key string, seq uint64, worker string) (uint64, error) {
	k := q.jobKey(key, seq)
	for {
		e, err := q.claims.Get(ctx, k)
		var rev uint64
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			rev, err = q.claims.Create(ctx, k, []byte(worker))
		case err != nil:
		case strings.HasPrefix(string(e.Value()), committedPrefix) && time.Since(e.Created()) < 2*q.opts.ackWait():
			return 0, errCommitted
		default:
			rev, err = q.claims.Update(ctx, k, []byte(worker), e.Revision())
		}
		if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue // another delivery wrote it meanwhile: look again
		}
		if err != nil {
			return 0, fmt.Errorf("queue: claiming job %d: %w", seq, err)
		}
		return rev, nil
	}
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
	value := []byte(committedPrefix + worker)
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
