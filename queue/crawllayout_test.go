package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	nethttp "net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfc1738/fetch/fetch"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
	"github.com/rfc1738/fetch/url"
)

// A fleet crawl of the first layout (links on fetch.crawl.<host>.<key>,
// settings without a generation) stays readable: its queued link is
// crawled, as generation 0, and the next crawl started after it ended is
// generation 1, which crawls the page again.
func TestOldCrawlLayoutReadable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var mu sync.Mutex
	var hits []string
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		mu.Lock()
		hits = append(hits, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>ok</p>"))
	}))
	defer srv.Close()
	seed := srv.URL + "/old"
	q, err := Open(ctx, Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	// The stream, settings and a queued seed as the first layout made them.
	if _, err := q.js.CreateStream(ctx, jetstream.StreamConfig{Name: CrawlStream, Subjects: []string{CrawlSubject + ".*.*"}, Retention: jetstream.LimitsPolicy,
		MaxMsgsPerSubject: 1, Discard: jetstream.DiscardNew, DiscardNewPerSubject: true}); err != nil {
		t.Fatal(err)
	}
	kv, err := q.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: CrawlBucket, History: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, crawlKey, []byte(`{"seeds":["`+seed+`"],"depth":1}`)); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte(srv.URL))
	k := sha256.Sum256([]byte(seed))
	subject := CrawlSubject + "." + hex.EncodeToString(h[:8]) + "." + hex.EncodeToString(k[:])
	if _, err := q.js.Publish(ctx, subject, []byte(`{"url":"`+seed+`","key":"`+seed+`","tag":"seed"}`)); err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &fetch.Client{Parser: url.Parser{Lenient: true}}
	c.Register("http", &httpscheme.Handler{})
	defer c.Close()
	crawl := func() {
		t.Helper()
		w := &Worker{Queue: q, Client: c, Store: st, Drain: true}
		if err := w.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	crawl()
	if cr, _, err := q.CurrentCrawl(ctx); err != nil || cr.Generation != 0 {
		t.Errorf("the old crawl: generation %d, %v; want 0", cr.Generation, err)
	}
	mu.Lock()
	if want := []string{"/old", "/robots.txt"}; !slices.Equal(slices.Sorted(slices.Values(hits)), want) {
		t.Errorf("the old crawl requested %q, want %q", hits, want)
	}
	hits = nil
	mu.Unlock()
	if n, err := q.StartCrawl(ctx, Crawl{Seeds: []string{seed}, Depth: 1}); err != nil || n != 1 {
		t.Fatalf("StartCrawl after the old crawl = %d, %v; want the seed queued", n, err)
	}
	if cr, _, err := q.CurrentCrawl(ctx); err != nil || cr.Generation != 1 {
		t.Errorf("the crawl started: generation %d, %v; want 1", cr.Generation, err)
	}
	crawl()
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"/old"}; !slices.Equal(hits, want) {
		t.Errorf("crawl 1 requested %q, want %q", hits, want)
	}
}
