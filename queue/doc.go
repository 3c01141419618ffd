// Package queue runs fetch jobs from a NATS JetStream work queue, so that a
// crawl can outgrow one process: any number of workers on any number of
// machines take jobs from one stream, fetch them with a fetch.Client, store
// each result once, and acknowledge it only after it is stored.
//
// # The stream
//
// Jobs are JSON messages on the subject "fetch.jobs" of the stream
// FETCH_JOBS, which has work-queue retention (a message is removed once
// acknowledged) and file storage. A job's Nats-Msg-Id is the hex SHA-256 of
// its normalized URL, so the same URL enqueued twice within the stream's
// duplicate window is stored in the stream once. Workers share one durable
// pull consumer, FETCH_WORKERS, with explicit acknowledgement: AckWait
// bounds how long a job may stay unacknowledged before JetStream hands it to
// another worker (a worker that is killed loses nothing). The consumer
// redelivers without limit; Options.MaxDeliver bounds a job's fetch
// attempts, judged by the worker: its delivery of that number records the
// outcome. A failure of the queue (a server or a stream leader gone) is
// never an attempt: the worker holds the job and tries the queue again.
//
// # Results
//
// A Store is a directory: each body is the file named by the hex SHA-256 of
// the normalized URL, and results.jsonl holds one JSON line a job. The line
// is the commit point: a worker takes the store's lock, reads the lines
// other workers appended since it last looked, and appends its own only when
// no line names that URL yet. A job redelivered after its line was written
// (the worker died before its ack reached the server) is recognised and
// acknowledged without being stored again. Every result, done or failed, is
// also published on "fetch.results.done" or "fetch.results.failed" of the
// stream FETCH_RESULTS, which Stats counts.
//
// # Politeness across workers
//
// The connections to one host are bounded across every worker by leases in
// the key-value bucket FETCH_HOSTS: a worker holds slot k of a host while it
// fetches from it, as the key "<host>.<k>", created only if absent (a
// compare-and-set on the server) and deleted when the fetch ends. The
// bucket's TTL frees the slot of a worker that died; a live worker renews
// its leases well within the TTL. A job whose host has no free slot is
// handed back (negative acknowledgement with a delay) for later.
//
// Leases were chosen over subjects partitioned by host (one consumer per
// host) because the number of hosts in a crawl is unbounded and unknown in
// advance: a consumer per host grows the server's state with every host,
// and a worker would have to discover and poll them all. Leases cost one
// key per active transfer and keep a single consumer; their price is a
// round trip to the server per fetch and redeliveries when many jobs wait
// on one busy host (see the package's README section for the figures).
//
// # Embedded server
//
// Without a NATS URL, Open runs an embedded JetStream server whose state
// lives in a directory. The first process to open the directory serves it
// on 127.0.0.1 and writes its address there; every other process on the
// machine (an enqueue while a worker runs) connects to that address. So a
// single machine needs nothing installed.
package queue
