package queue

import (
	"strings"
	"testing"
)

func TestMetricsPrometheus(t *testing.T) {
	var m Metrics
	m.record(Record{Status: 0, Size: 100})
	m.record(Record{Status: 7, Kind: "not found"})
	m.record(Record{Status: 10, Kind: "timeout"})
	m.record(Record{Status: 7, Kind: "not found"})
	m.add(func(s *MetricsSnapshot) { s.HandedBack++ })
	var b strings.Builder
	if err := m.WritePrometheus(&b, "w1"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# TYPE fetch_queue_jobs_total counter\n",
		`fetch_queue_jobs_total{worker="w1",outcome="done"} 1` + "\n",
		`fetch_queue_jobs_total{worker="w1",outcome="failed"} 3` + "\n",
		`fetch_queue_bytes_total{worker="w1"} 100` + "\n",
		`fetch_queue_errors_total{worker="w1",kind="not found"} 2` + "\n",
		`fetch_queue_errors_total{worker="w1",kind="timeout"} 1` + "\n",
		`fetch_queue_handed_back_total{worker="w1"} 1` + "\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}
