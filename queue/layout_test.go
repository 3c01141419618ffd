package queue

import (
	"context"
	nethttp "net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfc1738/fetch/fetch"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
	"github.com/rfc1738/fetch/url"
)

// A queue made by the first layout (jobs on fetch.jobs.<key>) is taken
// over: its subject stays beside the new one, so that its jobs and those
// enqueued the new way are fetched, and its consumer's MaxDeliver becomes
// unbounded (the worker counts tries itself).
func TestOldLayoutReadable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	state := t.TempDir()
	q, err := Open(ctx, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	// The stream and consumer as the first layout made them, with a job.
	if err := q.js.DeleteStream(ctx, JobStream); err != nil {
		t.Fatal(err)
	}
	if _, err := q.js.CreateStream(ctx, jetstream.StreamConfig{Name: JobStream, Subjects: []string{JobSubject + ".*"}, Retention: jetstream.WorkQueuePolicy,
		MaxMsgsPerSubject: 1, Discard: jetstream.DiscardNew, DiscardNewPerSubject: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.js.CreateOrUpdateConsumer(ctx, JobStream, jetstream.ConsumerConfig{Durable: Consumer, AckPolicy: jetstream.AckExplicitPolicy, MaxDeliver: 5}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	site := srv.URL
	old := site + "/old"
	if _, err := q.js.Publish(ctx, JobSubject+"."+Key(old), []byte(`{"url":"`+old+`"}`)); err != nil {
		t.Fatal(err)
	}
	q.Close()

	q, err = Open(ctx, Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	subj := q.jobs.CachedInfo().Config.Subjects
	if !slices.Contains(subj, JobSubject+".*") || !slices.Contains(subj, JobSubject+".*.*") {
		t.Errorf("subjects %q, want the old and the new", subj)
	}
	ci, err := q.consumer().Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if md := ci.Config.MaxDeliver; md != -1 {
		t.Errorf("the consumer's MaxDeliver is %d, want -1", md)
	}
	if _, _, err := q.Enqueue(ctx, func(yield func(Job) bool) { yield(Job{URL: site + "/new"}) }); err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &fetch.Client{Parser: url.Parser{Lenient: true}}
	c.Register("http", &httpscheme.Handler{})
	defer c.Close()
	var got []string
	w := &Worker{Queue: q, Client: c, Store: st, Drain: true, OnResult: func(r Record) {
		if r.Status == 0 {
			got = append(got, r.URL)
		}
	}}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{site + "/new", site + "/old"}; !slices.Equal(got, want) {
		t.Errorf("stored %q, want %q", got, want)
	}
}
