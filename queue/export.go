package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
// failure of each URL). It returns fn's first error, or nil at the end
// (with Follow, when ctx is done).
func (q *Queue) Export(ctx context.Context, opts ExportOptions, fn func(Record) error) error {
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{ResultSubject + ".>"}}
	if opts.Failed {
		cfg = jetstream.OrderedConsumerConfig{
			FilterSubjects: []string{ResultSubject + ".failed.>"},
			DeliverPolicy:  jetstream.DeliverLastPerSubjectPolicy,
		}
	}
	c, err := q.js.OrderedConsumer(ctx, ResultStream, cfg)
	if err != nil {
		return fmt.Errorf("queue: exporting results: %w", err)
	}
	ci, err := c.Info(ctx)
	if err != nil {
		return fmt.Errorf("queue: exporting results: %w", err)
	}
	if ci.NumPending == 0 && !opts.Follow {
		return nil
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
		var rec Record
		if json.Unmarshal(msg.Data(), &rec) == nil && rec.URL != "" {
			keep := true
			if opts.Failed {
				keep, err = q.stillFailed(ctx, msg.Subject(), meta.Sequence.Stream)
				if err != nil {
					return err
				}
			}
			if keep {
				if err := fn(rec); err != nil {
					return err
				}
			}
		}
		if meta.NumPending == 0 && !opts.Follow {
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// stillFailed reports whether the failure at seq on subject (of one key)
// has no success recorded after it.
func (q *Queue) stillFailed(ctx context.Context, subject string, seq uint64) (bool, error) {
	key := subject[strings.LastIndexByte(subject, '.')+1:]
	m, err := q.results.GetLastMsgForSubject(ctx, ResultSubject+".done."+key)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("queue: exporting results: %w", err)
	}
	return m.Sequence < seq, nil
}
