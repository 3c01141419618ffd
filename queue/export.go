package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ExportOptions says which records Export streams.
type ExportOptions struct {
	// Failed streams only the URLs whose last outcome is a failure: the
	// last failed record of each URL with no success recorded after it.
	Failed bool
	// Follow keeps streaming the records published after the call, until
	// ctx is done, instead of returning at the last one.
	Follow bool
}

// Export calls fn with each record of the results stream, from any
// machine, in the order they were published (with Failed, the last
// failure of each URL, in the order of those failures), a batch's
// records one by one. It returns fn's first error, or nil at the end
// (with Follow, when ctx is done; with Failed and Follow, the failures
// published after the call follow the others as they come).
//
// With Failed, the whole stream is read first, keeping the last failure
// of each URL not followed by a success: memory grows with the URLs that
// failed, not with the stream.
func (q *Queue) Export(ctx context.Context, opts ExportOptions, fn func(Record) error) error {
	c, err := q.js.OrderedConsumer(ctx, ResultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{ResultSubject + ".>"}})
	if err != nil {
		return fmt.Errorf("queue: exporting results: %w", err)
	}
	ci, err := c.Info(ctx)
	if err != nil {
		return fmt.Errorf("queue: exporting results: %w", err)
	}
	type failure struct {
		n   int // its place in the stream's records
		rec Record
	}
	var failed map[string]failure
	n := 0
	if opts.Failed {
		failed = map[string]failure{}
	}
	// emitFailed calls fn with the failures kept, in their order, once
	// the stream has been read to its end.
	emitFailed := func() error {
		if failed == nil {
			return nil
		}
		list := make([]failure, 0, len(failed))
		for _, f := range failed {
			list = append(list, f)
		}
		failed = nil
		slices.SortFunc(list, func(a, b failure) int { return a.n - b.n })
		for _, f := range list {
			if err := fn(f.rec); err != nil {
				return err
			}
		}
		return nil
	}
	if ci.NumPending == 0 {
		if err := emitFailed(); err != nil || !opts.Follow {
			return err
		}
	}
	for {
		msg, err := c.Next(jetstream.FetchMaxWait(time.Second))
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, jetstream.ErrNoMessages) || isTimeout(err) {
			if ctx.Err() != nil {
				return nil
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("queue: exporting results: %w", err)
		}
		meta, err := msg.Metadata()
		if err != nil {
			return fmt.Errorf("queue: exporting results: %w", err)
		}
		for _, rec := range records(msg) {
			n++
			switch {
			case !opts.Failed:
				err = fn(rec)
			case failed == nil: // following, after the first read
				if rec.Status != 0 {
					err = fn(rec)
				}
			case rec.Status != 0:
				failed[Key(rec.URL)] = failure{n, rec}
			default:
				delete(failed, Key(rec.URL))
			}
			if err != nil {
				return err
			}
		}
		if meta.NumPending == 0 {
			if err := emitFailed(); err != nil {
				return err
			}
			if !opts.Follow {
				return nil
			}
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}
