package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// Metrics counts what the Workers given it did. It is safe for concurrent
// use; its zero value is ready.
type Metrics struct {
	mu sync.Mutex
	s  MetricsSnapshot
}

// MetricsSnapshot is the state of a Metrics at one moment.
type MetricsSnapshot struct {
	Done        uint64            `json:"done"`         // jobs stored
	Failed      uint64            `json:"failed"`       // jobs recorded as failed
	Bytes       uint64            `json:"bytes"`        // bytes of the bodies stored
	Errors      map[string]uint64 `json:"errors"`       // failures by kind ("timeout", "not found", ...)
	LeaseWaits  uint64            `json:"lease_waits"`  // fetches that waited for a per-host slot
	LeaseWait   float64           `json:"lease_wait_s"` // seconds spent waiting for per-host slots
	HandedBack  uint64            `json:"handed_back"`  // jobs handed back for want of a per-host slot
	Retried     uint64            `json:"retried"`      // jobs handed back after a transient failure
	QueueErrors uint64            `json:"queue_errors"` // failures of the queue the worker went on after
	Fenced      uint64            `json:"fenced"`       // results not committed: the job had gone to another worker
}

// Snapshot returns a copy of the counts.
func (m *Metrics) Snapshot() MetricsSnapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.s
	s.Errors = make(map[string]uint64, len(m.s.Errors))
	for k, v := range m.s.Errors {
		s.Errors[k] = v
	}
	return s
}

// add changes the counts under the lock; a nil Metrics counts nothing.
func (m *Metrics) add(f func(s *MetricsSnapshot)) {
	if m == nil {
		return
	}
	m.mu.Lock()
	f(&m.s)
	m.mu.Unlock()
}

func (m *Metrics) record(rec Record) {
	m.add(func(s *MetricsSnapshot) {
		if rec.Status != 0 {
			s.Failed++
			if s.Errors == nil {
				s.Errors = map[string]uint64{}
			}
			s.Errors[rec.Kind]++
			return
		}
		s.Done++
		s.Bytes += uint64(max(rec.Size, 0))
	})
}

func (m *Metrics) leaseWait(d time.Duration) {
	m.add(func(s *MetricsSnapshot) { s.LeaseWaits++; s.LeaseWait += d.Seconds() })
}

// WritePrometheus writes the counts in Prometheus's text exposition
// format, each labelled with the worker's name.
func (m *Metrics) WritePrometheus(w io.Writer, worker string) error {
	s := m.Snapshot()
	lw := fmt.Sprintf("worker=%q", worker)
	var b strings.Builder
	metric := func(name, help string, lines ...string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n", name, help, name)
		for _, l := range lines {
			fmt.Fprintf(&b, "%s%s\n", name, l)
		}
	}
	metric("fetch_queue_jobs_total", "Jobs finished by the worker, by outcome.",
		fmt.Sprintf(`{%s,outcome="done"} %d`, lw, s.Done), fmt.Sprintf(`{%s,outcome="failed"} %d`, lw, s.Failed))
	metric("fetch_queue_bytes_total", "Bytes of the bodies stored.", fmt.Sprintf("{%s} %d", lw, s.Bytes))
	var errs []string
	for _, k := range slices.Sorted(mapKeys(s.Errors)) {
		errs = append(errs, fmt.Sprintf("{%s,kind=%q} %d", lw, k, s.Errors[k]))
	}
	metric("fetch_queue_errors_total", "Jobs recorded as failed, by the failure's kind.", errs...)
	metric("fetch_queue_lease_waits_total", "Fetches that waited for a per-host slot.", fmt.Sprintf("{%s} %d", lw, s.LeaseWaits))
	metric("fetch_queue_lease_wait_seconds_total", "Seconds spent waiting for per-host slots.", fmt.Sprintf("{%s} %g", lw, s.LeaseWait))
	metric("fetch_queue_handed_back_total", "Jobs handed back for want of a per-host slot.", fmt.Sprintf("{%s} %d", lw, s.HandedBack))
	metric("fetch_queue_retried_total", "Jobs handed back after a transient failure.", fmt.Sprintf("{%s} %d", lw, s.Retried))
	metric("fetch_queue_queue_errors_total", "Failures of the queue the worker went on after.", fmt.Sprintf("{%s} %d", lw, s.QueueErrors))
	metric("fetch_queue_fenced_total", "Results not committed: the job had been delivered to another worker since.", fmt.Sprintf("{%s} %d", lw, s.Fenced))
	_, err := io.WriteString(w, b.String())
	return err
}

func mapKeys(m map[string]uint64) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// WorkerMetrics is one worker's counts as it last published them.
type WorkerMetrics struct {
	Worker string          `json:"worker"`
	At     time.Time       `json:"at"`
	Counts MetricsSnapshot `json:"counts"`
}

// publishMetrics writes w's counts to the bucket FETCH_STATS, under a key
// of the worker's name.
func (q *Queue) publishMetrics(ctx context.Context, worker string, s MetricsSnapshot) error {
	data, err := json.Marshal(WorkerMetrics{Worker: worker, At: time.Now().UTC(), Counts: s})
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(worker))
	_, err = q.stats.Put(ctx, "w"+hex.EncodeToString(sum[:16]), data)
	return err
}

// WorkerMetrics returns the counts every worker published last, the
// workers that had Metrics set; they publish them every 5 seconds and when
// they stop.
func (q *Queue) WorkerMetrics(ctx context.Context) ([]WorkerMetrics, error) {
	var out []WorkerMetrics
	err := patiently(ctx, func(ctx context.Context) error {
		var err error
		out, err = q.workerMetricsOnce(ctx)
		return err
	})
	return out, err
}

func (q *Queue) workerMetricsOnce(ctx context.Context) ([]WorkerMetrics, error) {
	keys, err := q.stats.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	var out []WorkerMetrics
	for k := range keys.Keys() {
		e, err := q.stats.Get(ctx, k)
		if err != nil {
			continue // deleted meanwhile
		}
		var wm WorkerMetrics
		if json.Unmarshal(e.Value(), &wm) == nil {
			out = append(out, wm)
		}
	}
	slices.SortFunc(out, func(a, b WorkerMetrics) int { return strings.Compare(a.Worker, b.Worker) })
	return out, nil
}
