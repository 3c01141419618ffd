package queue

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// The costs of the queue's own operations on one embedded server, the
// basis of the sizing in the package's README section: what a job costs
// the server, apart from the fetch itself.

func benchQueue(b *testing.B) *Queue {
	b.Helper()
	q, err := Open(context.Background(), Options{StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { q.Close() })
	return q
}

// BenchmarkEnqueue publishes jobs, 256 in flight.
func BenchmarkEnqueue(b *testing.B) {
	q := benchQueue(b)
	b.ReportAllocs()
	n, _, err := q.Enqueue(context.Background(), func(yield func(Job) bool) {
		for i := range b.N {
			if !yield(Job{URL: fmt.Sprintf("http://h%d.example/doc/%d", i%100, i)}) {
				return
			}
		}
	})
	if err != nil || n != b.N {
		b.Fatalf("Enqueue = %d, %v", n, err)
	}
}

// BenchmarkLease takes and frees one per-host lease: two writes to the
// FETCH_HOSTS bucket, as every job does.
func BenchmarkLease(b *testing.B) {
	q := benchQueue(b)
	ls := &leases{kv: q.hosts, owner: "bench", perHost: 2, ttl: time.Minute}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		l, err := ls.acquire(ctx, fmt.Sprintf("h%d.example:80", i%1000))
		if err != nil {
			b.Fatal(err)
		}
		l.release(ctx)
	}
}

// BenchmarkResult publishes one result and waits for the server's
// acknowledgement, as every job does.
func BenchmarkResult(b *testing.B) {
	q := benchQueue(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := q.js.Publish(ctx, ResultSubject+".done.bench", nil); err != nil {
			b.Fatal(err)
		}
	}
}
