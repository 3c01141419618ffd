package queue

import (
	"context"
	"testing"
	"time"
)

// openQueue opens a queue on an embedded server with opts (in a fresh
// state directory unless opts names one), closed when the test ends, and
// a context that ends with the test or after a minute.
func openQueue(t *testing.T, opts Options) (*Queue, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	q, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q, ctx
}
