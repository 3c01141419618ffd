// Command fetch-queue runs fetch's work queue on NATS JetStream: "enqueue"
// publishes jobs, "worker" fetches them into a store, "results" reports
// progress. The fetch command hands "fetch enqueue|worker|results" over to
// it, with the same arguments, so that fetch itself links no NATS code.
// See docs/queue.md and docs/CONTRACT.md §7.
//
//	fetch-queue enqueue [--nats URL | --state DIR] [-K FILE | URL...]
//	fetch-queue worker  [--nats URL | --state DIR] --store DIR [--parallel N] [--per-host N] [--drain]
//	fetch-queue results [--nats URL | --state DIR] [--json]
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is the program's version, also sent as HTTP's User-Agent; it
// follows fetch's.
const version = "0.1.0"

func main() {
	// An interrupt stops a worker cleanly: the jobs it holds go back to
	// the queue at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole command: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "enqueue":
		return runEnqueue(ctx, args[1:], stdin, stdout, stderr)
	case "worker":
		return runWorker(ctx, args[1:], stdout, stderr)
	case "results":
		return runResults(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	case "--version", "-version":
		fmt.Fprintf(stdout, "fetch-queue %s\n", version)
		return 0
	}
	fmt.Fprintf(stderr, "fetch-queue: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  fetch-queue enqueue [--nats URL | --state DIR] [-K FILE | URL...]
                                    publish fetch jobs to a work queue
  fetch-queue worker [--nats URL | --state DIR] --store DIR [--parallel N] [--per-host N] [--drain]
                                    fetch queued jobs into DIR
  fetch-queue results [--nats URL | --state DIR] [--json]
                                    queued, in flight, done, failed
(each: fetch-queue NAME -h; "fetch NAME ..." runs the same)
`)
}
