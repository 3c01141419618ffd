package queue

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The commit point fences a delivery whose job was delivered again since:
// a first delivery commits unless a later one claimed the job; a claim
// commits unless a still later one claimed it; a job commits once.
func TestCommitFenced(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, err := Open(ctx, Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	key := Key("http://127.0.0.1/x")
	// Delivery 1 (worker a) is paused; delivery 2 (b) claims the job.
	rev2, err := q.claim(ctx, key, 7, "b")
	if err != nil {
		t.Fatal(err)
	}
	// Delivery 3 (c) claims it too: b is paused in its turn.
	rev3, err := q.claim(ctx, key, 7, "c")
	if err != nil {
		t.Fatal(err)
	}
	if err := q.commit(ctx, key, 7, 0, "a"); !errors.Is(err, errFenced) {
		t.Errorf("the first delivery's commit after a claim: %v, want fenced", err)
	}
	if err := q.commit(ctx, key, 7, rev2, "b"); !errors.Is(err, errFenced) {
		t.Errorf("an earlier claim's commit: %v, want fenced", err)
	}
	if err := q.commit(ctx, key, 7, rev3, "c"); err != nil {
		t.Errorf("the last claim's commit: %v", err)
	}
	if err := q.commit(ctx, key, 7, rev3, "c"); !errors.Is(err, errFenced) {
		t.Errorf("a second commit: %v, want fenced", err)
	}
	// A job delivered once commits with no claim, once.
	if err := q.commit(ctx, key, 8, 0, "a"); err != nil {
		t.Errorf("a first delivery's commit: %v", err)
	}
	if err := q.commit(ctx, key, 8, 0, "a"); !errors.Is(err, errFenced) {
		t.Errorf("its second commit: %v, want fenced", err)
	}
	// A delivery after a commit of a moment ago (the committing worker
	// was paused past AckWait, or resumed and committed before this
	// delivery claimed) waits for that worker's acknowledgement rather
	// than take the job over and store it again.
	if _, err := q.claim(ctx, key, 8, "b"); !errors.Is(err, errCommitted) {
		t.Errorf("a claim after a commit: %v, want errCommitted", err)
	}
}

// A commit older than two AckWaits is taken over by a later delivery: its
// worker died after committing and before acknowledging, so the job is
// claimed (and stored) by the delivery that finds it, never before two
// AckWaits have passed since the commit.
func TestClaimTakesOverOldCommit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const ackWait = 200 * time.Millisecond
	q, err := Open(ctx, Options{StateDir: t.TempDir(), AckWait: ackWait})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	key := Key("http://127.0.0.1/x")
	start := time.Now()
	if err := q.commit(ctx, key, 9, 0, "a"); err != nil {
		t.Fatal(err)
	}
	committed := false
	for {
		rev, err := q.claim(ctx, key, 9, "b")
		if errors.Is(err, errCommitted) {
			committed = true
			time.Sleep(ackWait / 4)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if elapsed := time.Since(start); !committed || elapsed < 2*ackWait {
			t.Fatalf("claimed after %v (refused before: %v); want refused for two AckWaits (%v), then claimed", elapsed, committed, 2*ackWait)
		}
		// The claim holds: its own commit passes, a's is fenced.
		if err := q.commit(ctx, key, 9, rev, "b"); err != nil {
			t.Errorf("the taking delivery's commit: %v", err)
		}
		return
	}
}
