package queue

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A lease found taken by another worker when it is renewed (this one was
// paused past its TTL) is reported lost, so that its fetch ends; one still
// held is renewed and not reported.
func TestLeaseLost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, err := Open(ctx, Options{StateDir: t.TempDir(), LeaseTTL: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ls := &leases{kv: q.hosts, owner: "a", perHost: 1, ttl: 300 * time.Millisecond}
	kept, err := ls.acquire(ctx, "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	lost, err := ls.acquire(ctx, "127.0.0.1:2")
	if err != nil {
		t.Fatal(err)
	}
	// The slot of the second went to another worker: its key rewritten.
	if _, err := q.hosts.Put(ctx, lost.key, []byte("b")); err != nil {
		t.Fatal(err)
	}
	rev := kept.rev
	report := make(chan error, 2)
	kctx, stop := context.WithCancel(ctx)
	defer stop()
	go kept.keep(kctx, func(err error) { report <- err })
	go lost.keep(kctx, func(err error) { report <- err })
	select {
	case err := <-report:
		if !errors.Is(err, errLeaseLost) {
			t.Fatalf("reported %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the lost lease was not reported")
	}
	// The kept one renews three times more without a report.
	deadline := time.Now().Add(30 * time.Second)
	for {
		kept.mu.Lock()
		n := kept.rev
		kept.mu.Unlock()
		if n > rev+2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the kept lease was not renewed")
		}
		select {
		case err := <-report:
			t.Fatalf("a lease still held was reported: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
