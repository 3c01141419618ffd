package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/crawl"
	"github.com/rfc1738/fetch/fetch/crawl/frontiertest"
	"github.com/rfc1738/fetch/queue"
)

// TestFrontier runs the crawl package's conformance kit against the
// JetStream frontier on the embedded server: reopening is a new Frontier
// (another worker) over the same queue.
func TestFrontier(t *testing.T) {
	var q *queue.Queue
	openOn := func(t *testing.T) crawl.Frontier {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		f, err := q.OpenFrontier(ctx, queue.FrontierOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	frontiertest.Test(t, func(t *testing.T) crawl.Frontier {
		q = open(t, t.TempDir())
		return openOn(t)
	}, func(t *testing.T) crawl.Frontier {
		return openOn(t)
	})
}
