package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/rfc1738/fetch/queue"
)

// crawlFlags are "fetch enqueue -r"'s: a fleet crawl's settings.
type crawlFlags struct {
	recursive, spanHosts, noRobots bool
	level                          int
}

func (c *crawlFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.recursive, "r", false, "start a fleet crawl from the URLs: every worker follows their links (as fetch -r) and queues what no worker queued before; while a crawl is running it is extended, once it has ended a new one crawls again (conditionally)")
	fs.BoolVar(&c.recursive, "recursive", false, "the same as -r")
	fs.IntVar(&c.level, "l", 5, "with -r, follow links at most N deep")
	fs.IntVar(&c.level, "level", 5, "the same as -l")
	fs.BoolVar(&c.spanHosts, "span-hosts", false, "with -r, follow links to other hosts")
	fs.BoolVar(&c.noRobots, "no-robots", false, "with -r, do not obey robots.txt or nofollow")
}

// startCrawl is "fetch enqueue -r": it starts the queue's fleet crawl
// from the seeds of args and input, or extends the one running (see
// queue.Queue.StartCrawl).
func startCrawl(ctx context.Context, qf queueFlags, cf crawlFlags, input string, args []string, asJSON bool, stdin io.Reader, stdout, stderr io.Writer) int {
	var inputs []string
	if input != "" {
		inputs = []string{input}
	}
	if len(args) == 0 && input == "" {
		fmt.Fprintln(stderr, "fetch enqueue: -r needs seed URLs (or -K FILE)")
		return 2
	}
	src, err := openSource(args, inputs, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "fetch enqueue: %v\n", err)
		return 2
	}
	defer src.Close()
	seeds := slices.Collect(src.all())
	if src.err != nil {
		fmt.Fprintf(stderr, "fetch enqueue: %v\n", src.err)
		return 2
	}
	q, err := queue.Open(ctx, qf.options())
	if err != nil {
		fmt.Fprintf(stderr, "fetch enqueue: %v\n", err)
		return 5
	}
	defer q.Close()
	before, _, _ := q.CurrentCrawl(ctx)
	n, err := q.StartCrawl(ctx, queue.Crawl{Seeds: seeds, Depth: cf.level, AnyHost: cf.spanHosts, IgnoreRobots: cf.noRobots, FollowNofollow: cf.noRobots})
	now, _, _ := q.CurrentCrawl(ctx)
	started := now.Generation != before.Generation
	switch {
	case asJSON:
		b, _ := marshalJSON(struct {
			Seeds   int  `json:"seeds"`
			Queued  int  `json:"queued"`
			Crawl   int  `json:"crawl"`   // the crawl's generation
			Started bool `json:"started"` // a new crawl, not the running one extended
		}{len(seeds), n, now.Generation, started})
		fmt.Fprintf(stdout, "%s\n", b)
	case started && before.Generation > 0:
		fmt.Fprintf(stdout, "crawl %d started: %d seeds queued (crawl %d had ended: its pages are fetched again, conditionally)\n", now.Generation, n, before.Generation)
	case started:
		fmt.Fprintf(stdout, "crawl started: %d seeds queued\n", n)
	default:
		fmt.Fprintf(stdout, "crawl %d extended: %d seeds queued (%d crawled before, not queued again)\n", now.Generation, n, len(seeds)-n)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fetch enqueue: %v\n", err)
		return 1
	}
	return 0
}
