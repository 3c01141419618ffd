package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/queue"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/url"
)

// queueFlags are the options every queue command takes: where the queue is.
type queueFlags struct {
	nats, state string
}

func (q *queueFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&q.nats, "nats", "", "URL of a NATS server or cluster with JetStream (default: an embedded server)")
	fs.StringVar(&q.state, "state", "", "the embedded server's state directory (default "+queue.DefaultStateDir()+")")
}

// newFlagSet returns a FlagSet for "fetch NAME" whose errors and help go to
// stderr.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("fetch "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: fetch %s %s\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, returning -1 to go on, else the exit code.
func parseFlags(fs *flag.FlagSet, args []string) int {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	return -1
}

// runEnqueue is "fetch enqueue [--nats URL] [-K FILE | URL...]".
func runEnqueue(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var qf queueFlags
	var input string
	var connectTO, maxTime float64
	fs := newFlagSet("enqueue", "[--nats URL] [--state DIR] [-K FILE | URL...]", stderr)
	qf.register(fs)
	fs.StringVar(&input, "K", "", "read URLs one a line from FILE (- for stdin)")
	fs.StringVar(&input, "input-file", "", "the same as -K")
	fs.Float64Var(&connectTO, "connect-timeout", 0, "seconds each dial of the job may take")
	fs.Float64Var(&maxTime, "max-time", 0, "seconds the whole job may take")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if input == "" && fs.NArg() == 0 {
		fmt.Fprintln(stderr, "fetch enqueue: give URLs, or -K FILE")
		return 2
	}
	opts := queue.Job{ConnectTimeout: secondsOf(connectTO), MaxTime: secondsOf(maxTime)}
	var inputs []string
	if input != "" {
		inputs = []string{input}
	}
	src, err := openSource(fs.Args(), inputs, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "fetch enqueue: %v\n", err)
		return 2
	}
	defer src.Close()
	jobs := func(yield func(queue.Job) bool) {
		for u := range src.all() {
			j := opts
			j.URL = u
			if !yield(j) {
				return
			}
		}
	}
	q, err := queue.Open(ctx, queue.Options{NATS: qf.nats, StateDir: qf.state})
	if err != nil {
		fmt.Fprintf(stderr, "fetch enqueue: %v\n", err)
		return 5
	}
	defer q.Close()
	n, dup, err := q.Enqueue(ctx, jobs)
	if err == nil {
		err = src.err
	}
	fmt.Fprintf(stdout, "enqueued %d jobs (%d already queued)\n", n, dup)
	if err != nil {
		fmt.Fprintf(stderr, "fetch enqueue: %v\n", err)
		return 1
	}
	return 0
}

func secondsOf(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// runWorker is "fetch worker [--nats URL] --store DIR [--parallel N]
// [--per-host N]".
func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var qf queueFlags
	var store, id, warcFile string
	var parallel, perHost, maxDeliver int
	var ackWait, leaseTTL, connectTO, maxTime float64
	var drain, silent, portOK bool
	fs := newFlagSet("worker", "[--nats URL] [--state DIR] --store DIR [--parallel N] [--per-host N]", stderr)
	qf.register(fs)
	fs.StringVar(&store, "store", "", "the results directory: bodies named by the hex SHA-256 of the normalized URL, and results.jsonl")
	fs.StringVar(&warcFile, "warc-file", "", "also record every fetch of this worker as WARC/1.1 records in FILE (gzip per record when FILE ends in .gz)")
	fs.StringVar(&id, "id", "", "the worker's name in results.jsonl (default host:pid)")
	fs.IntVar(&parallel, "parallel", 4, "jobs fetched at once")
	fs.IntVar(&perHost, "per-host", 2, "connections to one host:port across every worker")
	fs.IntVar(&maxDeliver, "max-deliver", 0, "deliveries of one job before it is recorded as failed (default 5)")
	fs.Float64Var(&ackWait, "ack-wait", 0, "seconds before an unacknowledged job goes to another worker (default 120)")
	fs.Float64Var(&leaseTTL, "lease-ttl", 0, "seconds before a dead worker's per-host lease frees itself (default 30)")
	fs.Float64Var(&connectTO, "connect-timeout", 0, "seconds each dial may take")
	fs.Float64Var(&maxTime, "max-time", 0, "seconds a job may take (when the job does not say)")
	fs.BoolVar(&drain, "drain", false, "exit once the queue is empty instead of waiting for jobs")
	fs.BoolVar(&silent, "s", false, "silent: no line per result")
	fs.BoolVar(&portOK, "allow-port-override", false, "permit another protocol's well-known port")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if store == "" || fs.NArg() > 0 || parallel < 1 || perHost < 1 {
		fs.Usage()
		return 2
	}
	st, err := queue.OpenStore(store)
	if err != nil {
		fmt.Fprintf(stderr, "fetch worker: %v\n", err)
		return 1
	}
	q, err := queue.Open(ctx, queue.Options{NATS: qf.nats, StateDir: qf.state, AckWait: secondsOf(ackWait), MaxDeliver: maxDeliver, LeaseTTL: secondsOf(leaseTTL)})
	if err != nil {
		fmt.Fprintf(stderr, "fetch worker: %v\n", err)
		return 5
	}
	defer q.Close()
	client := &fetch.Client{
		Parser:         url.Parser{Lenient: true},
		Policy:         fetch.Policy{AllowPortOverride: portOK},
		ConnectTimeout: secondsOf(connectTO),
		PerHost:        perHost,
	}
	cfg := schemes.Config{HTTPUserAgent: "fetch/" + version}
	sink := &warcSink{path: warcFile}
	sink.prepare(&cfg)
	schemes.Register(client, cfg)
	defer client.Close()
	if err := sink.start(client); err != nil {
		fmt.Fprintf(stderr, "fetch worker: %v\n", err)
		return 1
	}
	var done, failed int
	w := &queue.Worker{
		Queue: q, Client: client, Store: st, ID: id,
		Parallel: parallel, PerHost: perHost, MaxTime: secondsOf(maxTime), Drain: drain,
		Status: exitCode,
		Do: func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
			return sink.do(ctx, client, req)
		},
		OnResult: func(r queue.Record) {
			if r.Status == 0 {
				done++
			} else {
				failed++
			}
			if !silent {
				// results.jsonl keeps the URL as queued; what is shown
				// hides its password.
				if u, err := client.Parser.Parse(r.URL); err == nil {
					r.URL = u.Redacted()
				}
				line, _ := marshalJSON(r)
				fmt.Fprintf(stdout, "%s\n", line)
			}
		},
	}
	err = w.Run(ctx)
	if ferr := sink.finish(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "fetch worker: %v\n", err)
		return 1
	}
	if !silent {
		fmt.Fprintf(stderr, "fetch worker: stored %d, failed %d\n", done, failed)
	}
	return 0
}

// runResults is "fetch results [--nats URL]".
func runResults(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var qf queueFlags
	var asJSON bool
	fs := newFlagSet("results", "[--nats URL] [--state DIR] [--json]", stderr)
	qf.register(fs)
	fs.BoolVar(&asJSON, "json", false, "one JSON object")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	q, err := queue.Open(ctx, queue.Options{NATS: qf.nats, StateDir: qf.state})
	if err != nil {
		fmt.Fprintf(stderr, "fetch results: %v\n", err)
		return 5
	}
	defer q.Close()
	s, err := q.Stats(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "fetch results: %v\n", err)
		return 1
	}
	if asJSON {
		b, _ := marshalJSON(s)
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintf(stdout, "queued: %d\nin flight: %d\ndone: %d\nfailed: %d\n", s.Queued, s.InFlight, s.Done, s.Failed)
	return 0
}

// marshalJSON is json.Marshal for output meant for a terminal or a parser:
// server text in it has its control characters escaped.
func marshalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return fetch.SanitizeJSON(b), err
}
