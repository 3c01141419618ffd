package queue

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfc1738/fetch/fetch/crawl"
)

// RobotsBucket is the key-value bucket in which a fleet crawl's workers
// share hosts' robots.txt files (a crawl.RobotsCache).
const RobotsBucket = "FETCH_ROBOTS"

const (
	// robotsTTL is how long a host's file is kept: RFC 9309 §2.4 asks
	// crawlers not to use a cached file for more than 24 hours.
	robotsTTL = 24 * time.Hour
	// robotsErrorTTL is how long a server error (5xx: everything
	// disallowed) is kept before the file is fetched again.
	robotsErrorTTL = 5 * time.Minute
	// robotsClaimTTL is how old a claim (a worker fetching the file)
	// becomes before another worker takes it over: its worker renews it
	// every third of that while it fetches, so only a dead worker's
	// claim ages past it.
	robotsClaimTTL = time.Minute
)

// robotsCache is the fleet's crawl.RobotsCache: the bucket FETCH_ROBOTS,
// key "r" and the hex of the first 16 bytes of the SHA-256 of
// "scheme://host:port", value a JSON header line and the file's body. A
// worker that finds no file creates the key as a claim (created only if
// absent), fetches the file, and replaces the claim with it; the others
// wait for the file meanwhile.
type robotsCache struct {
	kv   jetstream.KeyValue
	id   string // the worker's, in its claims
	logf func(format string, args ...any)
	// claimTTL and errorTTL are robotsClaimTTL and robotsErrorTTL (a
	// test shortens them).
	claimTTL, errorTTL time.Duration
}

// robotsHeader is the first line of a value of FETCH_ROBOTS: a claim, or
// a file's status (its body follows the line).
type robotsHeader struct {
	Claim  string `json:"claim,omitempty"`
	Status int    `json:"status,omitempty"`
}

// openRobots makes the bucket FETCH_ROBOTS when missing, with the queue's
// replicas (one before nats-server 2.11, as FETCH_HOSTS: a claim is a
// create-if-absent), and returns the cache over it.
func (q *Queue) openRobots(ctx context.Context, id string, logf func(string, ...any)) (*robotsCache, error) {
	repl := q.replicas()
	if !exclusiveCreate(q.nc.ConnectedServerVersion()) {
		repl = 1
	}
	kv, err := q.bucket(ctx, jetstream.KeyValueConfig{
		Bucket:       RobotsBucket,
		Description:  "hosts' robots.txt files, shared by the workers of a fleet crawl",
		TTL:          robotsTTL,
		History:      1,
		MaxValueSize: crawl.MaxRobotsSize + 1024,
		Storage:      jetstream.FileStorage,
		Replicas:     repl,
	})
	if err != nil {
		return nil, err
	}
	return &robotsCache{kv: kv, id: id, logf: logf, claimTTL: robotsClaimTTL, errorTTL: robotsErrorTTL}, nil
}

// robotsKey is the key of host's file.
func robotsKey(host string) string {
	h := sha256.Sum256([]byte(host))
	return "r" + hex.EncodeToString(h[:16])
}

// Load returns the file the fleet keeps for host, or fetches it, once
// across the fleet: the worker that creates the key fetches, the others
// wait for its file (or take a claim over that its worker stopped
// renewing). A failure of the queue is logged, and the file fetched
// without the bucket.
func (c *robotsCache) Load(ctx context.Context, host string, get func(context.Context) (crawl.RobotsFile, error)) (crawl.RobotsFile, error) {
	key := robotsKey(host)
	wait := 20 * time.Millisecond
	for {
		e, err := c.kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			rev, err := c.kv.Create(ctx, key, c.claim())
			if err == nil {
				return c.fetch(ctx, host, key, rev, get)
			}
			if !errors.Is(err, jetstream.ErrKeyExists) {
				return c.alone(ctx, host, err, get)
			}
			// Another worker claimed it first (and the read before
			// may have come from a replica that had not seen it yet).
		}
		if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
			return c.alone(ctx, host, err, get)
		}
		if err != nil {
			if !c.pause(ctx, &wait) {
				return crawl.RobotsFile{}, ctx.Err()
			}
			continue
		}
		h, body, ok := parseRobots(e.Value())
		age := time.Since(e.Created())
		switch {
		case ok && h.Claim == "" && (h.Status < 500 || age < c.errorTTL):
			return crawl.RobotsFile{Status: h.Status, Body: body}, nil
		case ok && h.Claim != "" && age < c.claimTTL:
			// Another worker fetches it: wait for its file.
			if !c.pause(ctx, &wait) {
				return crawl.RobotsFile{}, ctx.Err()
			}
			continue
		}
		// A server error kept long enough, a claim its worker left, or
		// no value of ours: fetched again, by whoever replaces it.
		rev, err := c.kv.Update(ctx, key, c.claim(), e.Revision())
		if err == nil {
			return c.fetch(ctx, host, key, rev, get)
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return c.alone(ctx, host, err, get)
		}
		// Another worker replaced it first: read what it wrote.
	}
}

// fetch fetches host's file under the claim of revision rev, renewing the
// claim meanwhile, and replaces the claim with the file; a fetch that
// fails removes the claim, so that the next worker tries.
func (c *robotsCache) fetch(ctx context.Context, host, key string, rev uint64, get func(context.Context) (crawl.RobotsFile, error)) (crawl.RobotsFile, error) {
	renew, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(c.claimTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-renew.Done():
				return
			case <-t.C:
			}
			if r, err := c.kv.Update(renew, key, c.claim(), rev); err == nil {
				rev = r
			}
		}
	}()
	f, err := get(ctx)
	stop()
	<-done // rev is the claim's last revision from here on
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err != nil {
		if derr := c.kv.Delete(wctx, key, jetstream.LastRevision(rev)); derr != nil && !errors.Is(derr, jetstream.ErrKeyRevisionMismatch) {
			c.logf("robots.txt of %s: removing the claim: %v", host, derr)
		}
		return f, err
	}
	hdr, _ := json.Marshal(robotsHeader{Status: f.Status})
	v := append(append(hdr, '\n'), f.Body...)
	if _, uerr := c.kv.Update(wctx, key, v, rev); uerr != nil && !errors.Is(uerr, jetstream.ErrKeyRevisionMismatch) {
		c.logf("robots.txt of %s: keeping it for the fleet: %v", host, uerr)
	}
	return f, nil
}

// pause waits *wait, doubled each time up to 250 ms; false when ctx ended
// first.
func (c *robotsCache) pause(ctx context.Context, wait *time.Duration) bool {
	t := time.NewTimer(*wait)
	defer t.Stop()
	*wait = min(2**wait, 250*time.Millisecond)
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// alone fetches host's file without the bucket, which failed with err.
func (c *robotsCache) alone(ctx context.Context, host string, err error, get func(context.Context) (crawl.RobotsFile, error)) (crawl.RobotsFile, error) {
	if ctx.Err() != nil {
		return crawl.RobotsFile{}, ctx.Err()
	}
	c.logf("robots.txt of %s: %s: %v; fetched by this worker alone", host, RobotsBucket, err)
	return get(ctx)
}

// claim is the value of a claim: this worker fetches the file.
func (c *robotsCache) claim() []byte {
	b, _ := json.Marshal(robotsHeader{Claim: c.id})
	return append(b, '\n')
}

// parseRobots splits a value of FETCH_ROBOTS into its header and body.
func parseRobots(v []byte) (h robotsHeader, body []byte, ok bool) {
	line, body, found := bytes.Cut(v, []byte("\n"))
	if !found || json.Unmarshal(line, &h) != nil || h.Claim == "" && h.Status == 0 {
		return h, nil, false
	}
	if len(body) == 0 {
		body = nil
	}
	return h, body, true
}

var _ crawl.RobotsCache = (*robotsCache)(nil)
