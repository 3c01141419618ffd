package queue_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/crawl"
	"github.com/rfc1738/fetch/queue"
)

// The fleet's robots.txt cache: of five workers loading one host's file
// at once, one fetches it and the others wait for its file; a fetch that
// fails keeps nothing (the next load fetches), and hosts are apart.
func TestRobotsCacheOnceAcrossWorkers(t *testing.T) {
	q := open(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	caches := make([]crawl.RobotsCache, 5)
	for i := range caches {
		c, err := queue.RobotsCacheOf(ctx, q, fmt.Sprintf("w%d", i), 0)
		if err != nil {
			t.Fatal(err)
		}
		caches[i] = c
	}
	var fetches atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	get := func(ctx context.Context) (crawl.RobotsFile, error) {
		fetches.Add(1)
		once.Do(func() { close(started) })
		<-release // the others meet the claim meanwhile
		return crawl.RobotsFile{Status: 200, Body: []byte("User-agent: *\nDisallow: /x\n")}, nil
	}
	files := make([]crawl.RobotsFile, len(caches))
	errs := make([]error, len(caches))
	var wg sync.WaitGroup
	for i, c := range caches {
		wg.Go(func() { files[i], errs[i] = c.Load(ctx, "http://a.example:80", get) })
	}
	<-started
	close(release)
	wg.Wait()
	for i := range caches {
		if errs[i] != nil || files[i].Status != 200 || string(files[i].Body) != "User-agent: *\nDisallow: /x\n" {
			t.Errorf("worker %d: %+v, %v", i, files[i], errs[i])
		}
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("fetched %d times by five workers, want once", n)
	}

	down := errors.New("connection refused")
	calls := 0
	fail := func(ctx context.Context) (crawl.RobotsFile, error) { calls++; return crawl.RobotsFile{}, down }
	if _, err := caches[0].Load(ctx, "http://b.example:80", fail); !errors.Is(err, down) {
		t.Errorf("a failed fetch: %v, want its error", err)
	}
	notFound := func(ctx context.Context) (crawl.RobotsFile, error) {
		calls++
		return crawl.RobotsFile{Status: 404}, nil
	}
	for i := range 2 {
		if f, err := caches[i+1].Load(ctx, "http://b.example:80", notFound); err != nil || f.Status != 404 || f.Body != nil {
			t.Errorf("after a failed fetch, load %d: %+v, %v; want the 404 fetched", i, f, err)
		}
	}
	if calls != 2 {
		t.Errorf("%d fetches, want 2: the failure kept nothing, the 404 was kept", calls)
	}

	// A value that is none of ours is fetched again and replaced.
	kv, err := queue.JetStreamOf(q).KeyValue(ctx, queue.RobotsBucket)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte("http://c.example:80"))
	if _, err := kv.Put(ctx, "r"+hex.EncodeToString(h[:16]), []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if f, err := caches[i].Load(ctx, "http://c.example:80", notFound); err != nil || f.Status != 404 {
			t.Errorf("over a foreign value, load %d: %+v, %v; want the 404 fetched", i, f, err)
		}
	}
	if calls != 3 {
		t.Errorf("%d fetches, want 3: the foreign value replaced once", calls)
	}
}

// A claim whose worker died (it is not renewed) is taken over once it is
// older than the claim's TTL, and a server error (5xx) is fetched again
// once older than its TTL; a file renewed meanwhile is not.
func TestRobotsCacheClaimTakenOver(t *testing.T) {
	q := open(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const ttl = 300 * time.Millisecond
	c, err := queue.RobotsCacheOf(ctx, q, "survivor", ttl)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := queue.JetStreamOf(q).KeyValue(ctx, queue.RobotsBucket)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte("http://d.example:80"))
	if _, err := kv.Create(ctx, "r"+hex.EncodeToString(h[:16]), []byte(`{"claim":"dead"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	calls := 0
	down := func(ctx context.Context) (crawl.RobotsFile, error) {
		calls++
		return crawl.RobotsFile{Status: 503}, nil
	}
	f, err := c.Load(ctx, "http://d.example:80", down)
	if err != nil || f.Status != 503 || calls != 1 {
		t.Fatalf("over a dead worker's claim: %+v, %v, %d fetches; want the 503 fetched once", f, err, calls)
	}
	if waited := time.Since(start); waited < ttl {
		t.Errorf("the claim was taken over after %v, before its TTL %v", waited, ttl)
	}
	if f, err := c.Load(ctx, "http://d.example:80", down); err != nil || f.Status != 503 || calls != 1 {
		t.Errorf("a fresh 503: %+v, %v, %d fetches; want it kept", f, err, calls)
	}
	time.Sleep(ttl)
	if f, err := c.Load(ctx, "http://d.example:80", down); err != nil || f.Status != 503 || calls != 2 {
		t.Errorf("a 503 past its TTL: %+v, %v, %d fetches; want it fetched again", f, err, calls)
	}
}
