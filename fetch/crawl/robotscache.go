package crawl

import "context"

// MaxRobotsSize bounds the robots.txt a crawl reads: the rest of a longer
// file is ignored (RFC 9309 §2.5 asks for at least 500 KiB; Google reads
// 500 KiB).
const MaxRobotsSize = robotsMax

// RobotsFile is a host's robots.txt as a crawl fetched it.
type RobotsFile struct {
	// Status is the HTTP status of the fetch: 200, or the 4xx (everything
	// allowed) or 5xx (everything disallowed) the server answered.
	Status int
	// Body is the file, at most MaxRobotsSize bytes; nil but for a 2xx.
	Body []byte
}

// A RobotsCache keeps hosts' robots.txt files beyond one Robots value, in
// a store that several crawlers may share (the workers of a fleet), so
// that each host's file is fetched once for all of them. Robots calls Load
// once for each host it meets in a run (its concurrent callers for one
// host wait for that call), and keeps what it returns for the run.
type RobotsCache interface {
	// Load returns the file kept for host ("scheme://host:port"), or
	// calls fetch, keeps what it returns and returns that. It should let
	// one caller fetch a host's file at a time, across every crawler
	// sharing the cache, the others waiting for it. When fetch fails (the
	// host cannot be reached, ctx ends), Load keeps nothing and returns
	// the error: the crawl then allows the host's URLs, whose fetches
	// will fail on their own. A cache whose store fails should fetch and
	// return the file itself rather than fail.
	Load(ctx context.Context, host string, fetch func(context.Context) (RobotsFile, error)) (RobotsFile, error)
}
