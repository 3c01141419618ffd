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
