package queue

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/crawl"
	"github.com/rfc1738/fetch/url"
)

// LeaseAddress is the address a Worker with Client c leases for u.
func LeaseAddress(c *fetch.Client, u *url.URL) string {
	r := &run{w: &Worker{Client: c}}
	return r.address(u)
}

// JetStreamOf is q's JetStream context, for a test to act on the streams
// behind the queue's back.
func JetStreamOf(q *Queue) jetstream.JetStream { return q.js }

// RobotsCacheOf is the robots.txt cache a worker of q named id shares;
// with ttl, a claim older than ttl is taken over and a server error kept
// for ttl.
func RobotsCacheOf(ctx context.Context, q *Queue, id string, ttl time.Duration) (crawl.RobotsCache, error) {
	c, err := q.openRobots(ctx, id, func(string, ...any) {})
	if err == nil && ttl > 0 {
		c.claimTTL, c.errorTTL = ttl, ttl
	}
	return c, err
}

// Writes is how many messages were ever written to stream name (a
// key-value bucket's "KV_" + name, its deletes included).
func Writes(ctx context.Context, q *Queue, name string) (uint64, error) {
	s, err := q.js.Stream(ctx, name)
	if err != nil {
		return 0, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.State.LastSeq, nil
}
