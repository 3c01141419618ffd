package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/queue"
	"github.com/rfc1738/fetch/schemes"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
	"github.com/rfc1738/fetch/url"
)

// queueFlags are the options every queue command takes: where the queue is.
type queueFlags struct {
	nats, state, listen string
	replicas            int
}

func (q *queueFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&q.nats, "nats", "", "URL of a NATS server or cluster with JetStream (default: an embedded server)")
	fs.StringVar(&q.state, "state", "", "the embedded server's state directory (default "+queue.DefaultStateDir()+")")
	fs.StringVar(&q.listen, "listen", "", "where the embedded server listens, HOST:PORT (default 127.0.0.1, on a port chosen once and kept)")
	fs.IntVar(&q.replicas, "replicas", 0, "servers that keep each stream, bucket and consumer (default 3 on a cluster of 3 or more, else 1; never lowered)")
}

// options are the queue.Options of the flags.
func (q *queueFlags) options() queue.Options {
	return queue.Options{NATS: q.nats, StateDir: q.state, Listen: q.listen, Replicas: q.replicas}
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
	var retryFailed, asJSON bool
	var batch int
	fs := newFlagSet("enqueue", "[--nats URL] [--state DIR] [--batch N] [--retry-failed] [-r [-l N] [--span-hosts] [--no-robots]] [-K FILE | URL...]", stderr)
	qf.register(fs)
	fs.StringVar(&input, "K", "", "read URLs one a line from FILE (- for stdin)")
	fs.StringVar(&input, "input-file", "", "the same as -K")
	fs.Float64Var(&connectTO, "connect-timeout", 0, "seconds each dial of the job may take")
	fs.Float64Var(&maxTime, "max-time", 0, "seconds the whole job may take")
	fs.BoolVar(&retryFailed, "retry-failed", false, "also enqueue again every URL whose last outcome is a failure")
	fs.BoolVar(&asJSON, "json", false, "report as one JSON object")
	fs.IntVar(&batch, "batch", 0, fmt.Sprintf("pack up to N jobs of one host into one message (default %d; 1: one job a message)", queue.DefaultBatch))
	var cf crawlFlags
	cf.register(fs)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if cf.recursive {
		return startCrawl(ctx, qf, cf, input, fs.Args(), asJSON, stdin, stdout, stderr)
	}
	if batch < 0 {
		fmt.Fprintln(stderr, "fetch enqueue: --batch takes a positive number")
		return 2
	}
	if input == "" && fs.NArg() == 0 && !retryFailed {
		fmt.Fprintln(stderr, "fetch enqueue: give URLs, -K FILE, or --retry-failed")
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
	qo := qf.options()
	qo.Batch = batch
	q, err := queue.Open(ctx, qo)
	if err != nil {
		fmt.Fprintf(stderr, "fetch enqueue: %v\n", err)
		return 5
	}
	defer q.Close()
	var failedErr error
	jobs := func(yield func(queue.Job) bool) {
		for u := range src.all() {
			j := opts
			j.URL = u
			if !yield(j) {
				return
			}
		}
		if !retryFailed {
			return
		}
		stop := errors.New("stop")
		err := q.Export(ctx, queue.ExportOptions{Failed: true}, func(r queue.Record) error {
			j := opts
			j.URL = r.URL
			if !yield(j) {
				return stop
			}
			return nil
		})
		if err != nil && err != stop {
			failedErr = err
		}
	}
	n, dup, err := q.Enqueue(ctx, jobs)
	if err == nil {
		err = src.err
	}
	if err == nil {
		err = failedErr
	}
	if asJSON {
		b, _ := marshalJSON(struct {
			Enqueued int `json:"enqueued"`
			Pending  int `json:"already_pending"`
		}{n, dup})
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		fmt.Fprintf(stdout, "enqueued %d jobs (%d already pending, not queued again)\n", n, dup)
	}
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
	var drain, silent, portOK, noPrivate bool
	var allowSchemes, metricsAddr string
	var maxSize int64
	fs := newFlagSet("worker", "[--nats URL] [--state DIR] --store DIR [--parallel N] [--per-host N]", stderr)
	qf.register(fs)
	fs.StringVar(&store, "store", "", "the results directory: bodies named by the hex SHA-256 of the normalized URL, and results.jsonl")
	fs.StringVar(&warcFile, "warc-file", "", "also record every fetch of this worker as WARC/1.1 records in FILE (gzip per record when FILE ends in .gz)")
	fs.StringVar(&id, "id", "", "the worker's name in results.jsonl (default host:pid)")
	fs.IntVar(&parallel, "parallel", 4, "jobs fetched at once")
	fs.IntVar(&perHost, "per-host", 2, "connections to one host:port across every worker")
	fs.IntVar(&maxDeliver, "max-deliver", 0, "attempts at one job: the delivery of that number records its outcome (default 5)")
	fs.Float64Var(&ackWait, "ack-wait", 0, "seconds before an unacknowledged job goes to another worker (default 120)")
	fs.Float64Var(&leaseTTL, "lease-ttl", 0, "seconds before a dead worker's per-host lease frees itself (default 30)")
	fs.Float64Var(&connectTO, "connect-timeout", 0, "seconds each dial may take")
	fs.Float64Var(&maxTime, "max-time", 0, "seconds a job may take (when the job does not say)")
	fs.BoolVar(&drain, "drain", false, "exit once the queue is empty instead of waiting for jobs")
	fs.BoolVar(&silent, "s", false, "silent: no line per result")
	fs.BoolVar(&portOK, "allow-port-override", false, "permit another protocol's well-known port")
	fs.BoolVar(&noPrivate, "no-private", false, "refuse to connect to loopback, private, link-local and multicast addresses")
	fs.StringVar(&allowSchemes, "allow-schemes", "", "fetch only jobs of these comma-separated schemes (default every scheme but file: a job's file: URL is refused unless named here)")
	fs.StringVar(&metricsAddr, "metrics", "", "serve the worker's counts at http://ADDR/metrics in Prometheus's text format")
	fs.Int64Var(&maxSize, "max-filesize", 0, "refuse a resource larger than N bytes (default no bound)")
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
	opts := qf.options()
	opts.AckWait, opts.MaxDeliver, opts.LeaseTTL = secondsOf(ackWait), maxDeliver, secondsOf(leaseTTL)
	q, err := queue.Open(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "fetch worker: %v\n", err)
		return 5
	}
	defer q.Close()
	schemesAllowed, err := workerSchemes(allowSchemes)
	if err != nil {
		fmt.Fprintf(stderr, "fetch worker: --allow-schemes: %v\n", err)
		return 2
	}
	client := &fetch.Client{
		Parser:         url.Parser{Lenient: true},
		Policy:         fetch.Policy{AllowPortOverride: portOK, DenyPrivate: noPrivate, Schemes: schemesAllowed},
		ConnectTimeout: secondsOf(connectTO),
		PerHost:        perHost,
	}
	web := &httpscheme.Handler{UserAgent: "fetch/" + version}
	sink := &warcSink{path: warcFile}
	sink.prepare(web)
	schemes.Register(client)
	client.Replace("http", web) // one handler, one pool, for both
	client.Replace("https", web)
	defer client.Close()
	if err := sink.start(client); err != nil {
		fmt.Fprintf(stderr, "fetch worker: %v\n", err)
		return 1
	}
	var done, failed int
	var outMu sync.Mutex
	metrics := &queue.Metrics{}
	name := id
	if name == "" {
		h, _ := os.Hostname()
		name = fmt.Sprintf("%s:%d", h, os.Getpid())
	}
	if metricsAddr != "" {
		stop, err := serveMetrics(metricsAddr, metrics, name)
		if err != nil {
			fmt.Fprintf(stderr, "fetch worker: --metrics: %v\n", err)
			return 1
		}
		defer stop()
	}
	w := &queue.Worker{
		Metrics: metrics,
		Queue:   q, Client: client, Store: st, ID: name,
		Parallel: parallel, PerHost: perHost, MaxTime: secondsOf(maxTime), MaxSize: maxSize, Drain: drain,
		Status: fetch.ExitCode,
		Do: func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
			return sink.do(ctx, client, req)
		},
		Logf: func(format string, args ...any) {
			fmt.Fprintf(stderr, "fetch worker: "+format+"\n", args...)
		},
		OnResult: func(r queue.Record) {
			// Called by the worker's fetches at once: one line at a time.
			outMu.Lock()
			defer outMu.Unlock()
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
				line, _ := json.Marshal(r)
				line = fetch.SanitizeJSON(line) // no raw control reaches the terminal
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
	var asJSON, export, failed, follow bool
	fs := newFlagSet("results", "[--nats URL] [--state DIR] [--json] [--export [--failed] [--follow]]", stderr)
	qf.register(fs)
	fs.BoolVar(&asJSON, "json", false, "one JSON object (with --export, one a record and line)")
	fs.BoolVar(&export, "export", false, "stream every record of the results stream, from any machine")
	fs.BoolVar(&failed, "failed", false, "with --export: only the URLs whose last outcome is a failure")
	fs.BoolVar(&follow, "follow", false, "with --export: keep streaming new records until interrupted")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if (failed || follow) && !export {
		fmt.Fprintln(stderr, "fetch results: --failed and --follow go with --export")
		return 2
	}
	q, err := queue.Open(ctx, qf.options())
	if err != nil {
		fmt.Fprintf(stderr, "fetch results: %v\n", err)
		return 5
	}
	defer q.Close()
	if export {
		w := bufio.NewWriter(stdout)
		err := q.Export(ctx, queue.ExportOptions{Failed: failed, Follow: follow}, func(r queue.Record) error {
			if u, err := (&url.Parser{Lenient: true}).Parse(r.URL); err == nil {
				r.URL = u.Redacted()
			}
			if asJSON {
				b, _ := marshalJSON(r)
				w.Write(append(b, '\n'))
			} else {
				fmt.Fprintf(w, "%d\t%s\t%d\t%s\n", r.Status, r.Kind, r.Size, r.URL)
			}
			if follow {
				return w.Flush()
			}
			return nil
		})
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		if err != nil {
			fmt.Fprintf(stderr, "fetch results: %v\n", err)
			return 1
		}
		return 0
	}
	s, err := q.Stats(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "fetch results: %v\n", err)
		return 1
	}
	workers, err := q.WorkerMetrics(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "fetch results: %v\n", err)
		return 1
	}
	if asJSON {
		b, _ := marshalJSON(struct {
			queue.Stats
			Workers []queue.WorkerMetrics `json:"workers"`
		}{s, workers})
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintf(stdout, "queued: %d\nin flight: %d\ndone: %d\nfailed: %d\n", s.Queued, s.InFlight, s.Done, s.Failed)
	if c := s.Crawl; c != nil {
		fmt.Fprintf(stdout, "crawl: %d URLs seen, %d queued, %d in flight\n", c.Seen, c.Queued, c.InFlight)
	}
	for _, w := range workers {
		c := w.Counts
		fmt.Fprintf(stdout, "worker %s (at %s): %d done, %d failed, %d bytes, %d handed back, %d lease waits\n",
			w.Worker, w.At.Format(time.RFC3339), c.Done, c.Failed, c.Bytes, c.HandedBack, c.LeaseWaits)
	}
	return 0
}

// workerSchemes is the list of schemes a worker fetches: those of list
// (comma-separated), or every scheme but file, so that a job published by
// anyone who can reach the queue cannot read the worker's files unless
// the worker was told it may.
func workerSchemes(list string) ([]string, error) {
	var out []string
	if list == "" {
		for _, s := range url.Schemes() {
			if s.Name != "file" {
				out = append(out, s.Name)
			}
		}
		return out, nil
	}
	for _, s := range strings.Split(list, ",") {
		s = strings.ToLower(strings.TrimSpace(s))
		if _, ok := url.LookupScheme(s); !ok {
			return nil, fmt.Errorf("unknown scheme %q", s)
		}
		out = append(out, s)
	}
	return out, nil
}

// serveMetrics serves m at http://addr/metrics, on a mux of its own, until
// the returned func is called.
func serveMetrics(addr string, m *queue.Metrics, worker string) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	metricsListening(ln.Addr().String())
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		m.WritePrometheus(w, worker)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return func() { srv.Close() }, nil
}

// metricsListening is told where --metrics listens (a test's hook).
var metricsListening = func(addr string) {}

// marshalJSON is json.Marshal for output meant for a terminal or a parser:
// server text in it has its control characters escaped.
func marshalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return fetch.SanitizeJSON(b), err
}
