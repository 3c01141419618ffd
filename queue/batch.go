package queue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// A batch is one message of several jobs of one host (the same scheme,
// host and port), {"jobs":[job, ...]}, on the subject
// "fetch.jobs.<host>.<batch key>", the batch key the hex SHA-256 of the
// message: a worker takes it whole, fetches its jobs one after the other
// on one host slot, and passes one commit point, publishes one message of
// results and acknowledges once for all of them. A message of one job is
// the job itself, as before batches.

// DefaultBatch is the most jobs Enqueue packs into one message when
// Options.Batch is zero. A batch costs four replicated writes (its
// delivery, a commit point, a result message, its acknowledgement)
// whatever its size; a cluster of three spends some 2–3 ms of CPU on
// them (bench/queue.sh, nats-server 2.9.10), a tenth of a millisecond a
// job in batches of 64, 40 µs in batches of 256. The price: a worker that
// dies mid-batch costs up to 256 fetches again, and a batch's records
// come when its last job ends (on a host with a backlog its jobs go one
// at a time on one slot: at 0.5 s a fetch, two minutes); --batch 64 or
// less where records are wanted sooner. A batch of long URLs stays within
// maxBatchBytes, fewer jobs to the message.
const DefaultBatch = 256

// maxBatchBytes bounds a batch message, below the stream's maxJobSize.
const maxBatchBytes = 60 << 10

// maxBatchJobs bounds the jobs a worker takes from one message.
const maxBatchJobs = 1024

// maxOpenBatches bounds the hosts whose batch Enqueue fills at once;
// past it the batch filled longest ago is published as it is.
const maxOpenBatches = 256

// message is a job message as published: one job, or a batch of them.
type message struct {
	Job
	Jobs []Job `json:"jobs,omitempty"`
}

// decodeMessage reads a job message: one job, or the jobs of a batch.
// A batch's job without a URL, or with one longer than maxURL, is left
// out and counted in bad.
func decodeMessage(data []byte) (jobs []Job, batch bool, bad int, err error) {
	if len(data) > maxJobSize {
		return nil, false, 0, fmt.Errorf("job of %d bytes exceeds %d", len(data), maxJobSize)
	}
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, false, 0, fmt.Errorf("job is not JSON: %w", err)
	}
	if m.Jobs == nil {
		j, err := checkJob(m.Job)
		if err != nil {
			return nil, false, 0, err
		}
		return []Job{j}, false, 0, nil
	}
	if m.URL != "" {
		return nil, false, 0, errors.New("a message with both a job and a batch")
	}
	if len(m.Jobs) > maxBatchJobs {
		return nil, false, 0, fmt.Errorf("a batch of %d jobs exceeds %d", len(m.Jobs), maxBatchJobs)
	}
	seen := make(map[string]bool, len(m.Jobs))
	for _, j := range m.Jobs {
		if _, err := checkJob(j); err != nil || seen[Key(j.URL)] {
			bad++ // no URL, too long, or twice in the batch
			continue
		}
		seen[Key(j.URL)] = true
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		return nil, false, bad, errors.New("a batch without a job")
	}
	return jobs, true, bad, nil
}

// checkJob checks what decodeJob does of one job.
func checkJob(j Job) (Job, error) {
	if j.URL == "" {
		return j, errors.New("job without a URL")
	}
	if len(j.URL) > maxURL {
		return j, fmt.Errorf("a URL of %d bytes exceeds %d", len(j.URL), maxURL)
	}
	return j, nil
}

// packer fills a batch per host as Enqueue reads the jobs.
type packer struct {
	max   int // jobs a batch
	open  map[string]*openBatch
	order []string // the hosts of open, oldest first
}

type openBatch struct {
	host  string // the hash of its turn key, as in the subject
	jobs  []json.RawMessage
	keys  map[string]bool
	bytes int
}

// add adds the encoded job of key to the batch of turn key tk, and
// returns the batches to publish now: the host's when it is full, the
// oldest when too many are open. dup reports a job already in its
// host's open batch.
func (p *packer) add(tk, key string, data []byte) (ready []*openBatch, dup bool) {
	b := p.open[tk]
	if b != nil && b.bytes+len(data)+1 > maxBatchBytes {
		ready = append(ready, p.take(tk))
		b = nil
	}
	if b == nil {
		if len(p.open) >= maxOpenBatches {
			ready = append(ready, p.take(p.order[0]))
		}
		b = &openBatch{host: hostHash(tk), keys: map[string]bool{}, bytes: len(`{"jobs":[]}`)}
		p.open[tk] = b
		p.order = append(p.order, tk)
	}
	if b.keys[key] {
		return ready, true
	}
	b.keys[key] = true
	b.jobs = append(b.jobs, data)
	b.bytes += len(data) + 1
	if len(b.jobs) >= p.max {
		ready = append(ready, p.take(tk))
	}
	return ready, false
}

// take removes the open batch of tk.
func (p *packer) take(tk string) *openBatch {
	b := p.open[tk]
	delete(p.open, tk)
	for i, h := range p.order {
		if h == tk {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
	return b
}

// rest returns the batches still open, oldest first.
func (p *packer) rest() []*openBatch {
	var out []*openBatch
	for len(p.order) > 0 {
		out = append(out, p.take(p.order[0]))
	}
	return out
}

// message returns b's subject and data: a batch message, or for a batch
// of one job the job's own message.
func (b *openBatch) message() (subject string, data []byte) {
	if len(b.jobs) == 1 {
		var j Job
		json.Unmarshal(b.jobs[0], &j)
		return JobSubjectOf(j.URL), b.jobs[0]
	}
	var sb strings.Builder
	sb.WriteString(`{"jobs":[`)
	for i, j := range b.jobs {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.Write(j)
	}
	sb.WriteString(`]}`)
	data = []byte(sb.String())
	sum := sha256.Sum256(data)
	return JobSubject + "." + b.host + "." + hex.EncodeToString(sum[:]), data
}

// hostHash is the host token of a job's subject for turn key tk.
func hostHash(tk string) string {
	h := sha256.Sum256([]byte(tk))
	return hex.EncodeToString(h[:8])
}
