package queue

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A stream made with a configuration has its settings as the server
// reports them back, defaults filled in (so that opening the queue again
// updates nothing), and lacks them when one differs.
func TestHasSettings(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, err := Open(ctx, Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	want := jetstream.StreamConfig{
		Name:                 "TEST_SETTINGS",
		Description:          "a test",
		Subjects:             []string{"test.settings.>"},
		Retention:            jetstream.WorkQueuePolicy,
		MaxMsgsPerSubject:    1,
		Discard:              jetstream.DiscardNew,
		DiscardNewPerSubject: true,
		MaxMsgSize:           4096,
		Replicas:             1,
	}
	s, err := q.stream(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	have := s.CachedInfo().Config
	if !hasSettings(have, want) {
		t.Fatalf("the stream made with %+v lacks its settings: %+v", want, have)
	}
	for name, change := range map[string]func(*jetstream.StreamConfig){
		"description": func(c *jetstream.StreamConfig) { c.Description = "another" },
		"subjects":    func(c *jetstream.StreamConfig) { c.Subjects = append(c.Subjects, "test.more") },
		"replicas":    func(c *jetstream.StreamConfig) { c.Replicas = 3 },
		"limit":       func(c *jetstream.StreamConfig) { c.MaxMsgSize = 8192 },
		"duplicates":  func(c *jetstream.StreamConfig) { c.Duplicates = time.Hour },
	} {
		w := want
		w.Subjects = append([]string(nil), want.Subjects...)
		change(&w)
		if hasSettings(have, w) {
			t.Errorf("%s changed: the stream has the settings, want not", name)
		}
	}
	// Made again with the same settings, it is the same stream, not updated.
	if s2, err := q.stream(ctx, want); err != nil || s2.CachedInfo().Created != s.CachedInfo().Created {
		t.Errorf("the stream again: %v", err)
	}
}

// TestBucketHas: a bucket the queue made has the settings it was made
// with, each changed setting is seen, and opening it again with the same
// settings does not update it.
func TestBucketHas(t *testing.T) {
	q, ctx := openQueue(t, Options{})
	for _, want := range []jetstream.KeyValueConfig{
		{Bucket: "TEST_PLAIN", Description: "a test", Storage: jetstream.FileStorage},
		{Bucket: "TEST_LIMITS", Description: "a test", TTL: time.Hour, History: 1, MaxValueSize: 4096, Storage: jetstream.FileStorage, Replicas: 1},
	} {
		if _, err := q.bucket(ctx, want); err != nil {
			t.Fatal(err)
		}
		info, err := q.js.Stream(ctx, "KV_"+want.Bucket)
		if err != nil {
			t.Fatal(err)
		}
		have := info.CachedInfo().Config
		if !bucketHas(have, want) {
			t.Fatalf("the bucket made with %+v lacks its settings: %+v", want, have)
		}
		for name, change := range map[string]func(*jetstream.KeyValueConfig){
			"description": func(c *jetstream.KeyValueConfig) { c.Description = "another" },
			"ttl":         func(c *jetstream.KeyValueConfig) { c.TTL = time.Minute },
			"history":     func(c *jetstream.KeyValueConfig) { c.History = 5 },
			"value size":  func(c *jetstream.KeyValueConfig) { c.MaxValueSize = 8192 },
			"replicas":    func(c *jetstream.KeyValueConfig) { c.Replicas = 3 },
		} {
			w := want
			change(&w)
			if bucketHas(have, w) {
				t.Errorf("%s: %s changed: the bucket has the settings, want not", want.Bucket, name)
			}
		}
		// Opened again with the same settings: no update asked for.
		updates, err := q.nc.SubscribeSync("$JS.API.STREAM.UPDATE.KV_" + want.Bucket)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.bucket(ctx, want); err != nil {
			t.Fatal(err)
		}
		q.nc.Flush()
		if m, err := updates.NextMsg(100 * time.Millisecond); err == nil {
			t.Errorf("%s opened again with its settings was updated: %s", want.Bucket, m.Data)
		}
		updates.Unsubscribe()
		// With another setting, it is.
		w := want
		w.Description = "another"
		if _, err := q.bucket(ctx, w); err != nil {
			t.Fatal(err)
		}
		if s, err := q.js.Stream(ctx, "KV_"+want.Bucket); err != nil || s.CachedInfo().Config.Description != "another" {
			t.Errorf("%s not updated to another description: %v", want.Bucket, err)
		}
	}
}
