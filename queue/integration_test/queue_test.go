//go:build integration

package integration_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rfc1738/fetch/queue"
)

// countingSite is an HTTP server in the test process that measures the
// requests it has in progress at once: what "never more than --per-host
// connections to a host" is checked against.
type countingSite struct {
	*httptest.Server
	active, peak, requests atomic.Int32
}

func newCountingSite(t *testing.T, delay time.Duration) *countingSite {
	s := &countingSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.active.Add(1)
		defer s.active.Add(-1)
		for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
		}
		s.requests.Add(1)
		time.Sleep(delay)
		fmt.Fprintf(w, "body of %s\n", r.URL.Path)
	}))
	t.Cleanup(s.Close)
	return s
}

// queueMode is where the queue commands find their server: an external
// nats-server (Debian's, started by servers/nats.sh) or the embedded one.
type queueMode struct {
	name string
	args []string // --nats URL or --state DIR
}

func queueModes(t *testing.T) []queueMode {
	modes := []queueMode{{name: "embedded"}}
	if u := os.Getenv("FETCH_IT_NATS_URL"); u != "" {
		modes = append(modes, queueMode{name: "nats-server", args: []string{"--nats", u}})
	} else if os.Getenv("FETCH_IT_REQUIRE") == "1" {
		t.Fatal("FETCH_IT_NATS_URL is not set although every server was started")
	}
	return modes
}

// fresh returns the mode's queue arguments for one test: a new state
// directory, or the external server with the queue's streams deleted.
func (m queueMode) fresh(t *testing.T) []string {
	t.Helper()
	if m.args == nil {
		return []string{"--state", t.TempDir()}
	}
	nc, err := nats.Connect(m.args[1])
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, s := range []string{"FETCH_JOBS", "FETCH_RESULTS", "KV_FETCH_HOSTS", "KV_FETCH_STATS", "FETCH_CRAWL", "KV_FETCH_CRAWLS", "KV_FETCH_WAITS", "KV_FETCH_CLAIMS", "KV_FETCH_ROBOTS"} {
		if err := js.DeleteStream(ctx, s); err != nil && !strings.Contains(err.Error(), "not found") {
			t.Fatal(err)
		}
	}
	return m.args
}

// startWorker starts "fetch worker" in the background; the test stops it.
func startWorker(t *testing.T, q []string, store string, extra ...string) *exec.Cmd {
	t.Helper()
	args := append(append([]string{"worker"}, q...), "--store", store, "-s", "--ack-wait", "2", "--lease-ttl", "3")
	cmd := exec.Command(fetchBin(t), append(args, extra...)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() && errb.Len() > 0 {
			t.Logf("worker stderr: %s", errb.String())
		}
	})
	return cmd
}

func enqueue(t *testing.T, q []string, urls []string, flags ...string) {
	t.Helper()
	list := filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(list, []byte(strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runFetch(t, nil, append(append(append([]string{"enqueue"}, q...), flags...), "-K", list)...)
	wantCode(t, r, 0, "fetch enqueue")
}

type record struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Kind     string `json:"kind"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
	Worker   string `json:"worker"`
	Attempts int    `json:"attempts"`
}

// checkStore fails the test unless store holds exactly one successful
// record per URL of urls, each with its body.
func checkStore(t *testing.T, store string, urls []string) []record {
	t.Helper()
	f, err := os.Open(filepath.Join(store, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []record
	count := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("results.jsonl: %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
		count[r.URL]++
	}
	lost, dup := 0, 0
	for _, u := range urls {
		switch count[u] {
		case 0:
			lost++
		case 1:
		default:
			dup++
		}
	}
	if lost > 0 || dup > 0 || len(recs) != len(urls) {
		t.Fatalf("%d records for %d URLs: %d lost, %d duplicated", len(recs), len(urls), lost, dup)
	}
	for _, r := range recs {
		body, err := os.ReadFile(filepath.Join(store, queue.Key(r.URL)))
		if err != nil {
			t.Fatalf("%s: %v", r.URL, err)
		}
		bs := sha256.Sum256(body)
		if r.Status != 0 || r.SHA256 != hex.EncodeToString(bs[:]) || !strings.HasPrefix(string(body), "body of /") {
			t.Fatalf("%+v does not match the body stored (%q)", r, body)
		}
	}
	return recs
}

// waitUntil polls cond for up to a minute.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// A worker killed with SIGKILL mid-fetch loses nothing: its jobs are
// delivered again and each is stored exactly once.
func TestQueueKilledWorker(t *testing.T) {
	for _, m := range queueModes(t) {
		t.Run(m.name, func(t *testing.T) {
			site := newCountingSite(t, 300*time.Millisecond)
			q := m.fresh(t)
			var urls []string
			for i := range 40 {
				urls = append(urls, fmt.Sprintf("%s/k/%d", site.URL, i))
			}
			// Batches of 8: one host's 40 jobs are shared by the two
			// workers (as one batch of 40 they would go to one), and the
			// victim's batches are delivered again whole.
			enqueue(t, q, urls, "--batch", "8")
			store := t.TempDir()
			// The survivor starts first: in embedded mode it runs the
			// server, which the victim joins.
			survivor := startWorker(t, q, store, "--parallel", "2", "--per-host", "8", "--drain")
			victim := startWorker(t, q, store, "--parallel", "6", "--per-host", "8")
			waitUntil(t, "the victim is fetching", func() bool { return site.active.Load() >= 6 })
			victim.Process.Signal(syscall.SIGKILL)
			victim.Wait()
			done := make(chan error, 1)
			go func() { done <- survivor.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("survivor: %v", err)
				}
			case <-time.After(2 * time.Minute):
				t.Fatal("the survivor did not drain the queue")
			}
			recs := checkStore(t, store, urls)
			redelivered := 0
			for _, r := range recs {
				if r.Attempts > 1 {
					redelivered++
				}
			}
			if redelivered == 0 {
				t.Errorf("no job was delivered again after the kill (%d requests for %d URLs)", site.requests.Load(), len(urls))
			}
			t.Logf("%d requests for %d URLs; %d jobs delivered more than once", site.requests.Load(), len(urls), redelivered)
		})
	}
}

// Three workers never hold more than --per-host connections to one host,
// measured at the servers.
func TestQueuePerHost(t *testing.T) {
	for _, m := range queueModes(t) {
		t.Run(m.name, func(t *testing.T) {
			sites := []*countingSite{newCountingSite(t, 40*time.Millisecond), newCountingSite(t, 40*time.Millisecond), newCountingSite(t, 40*time.Millisecond)}
			q := m.fresh(t)
			var urls []string
			for i := range 30 {
				for j, s := range sites {
					urls = append(urls, fmt.Sprintf("%s/h%d/%d", s.URL, j, i))
				}
			}
			enqueue(t, q, urls)
			store := t.TempDir()
			var ws []*exec.Cmd
			for range 3 {
				ws = append(ws, startWorker(t, q, store, "--parallel", "4", "--per-host", "2", "--drain"))
			}
			for _, w := range ws {
				if err := w.Wait(); err != nil {
					t.Fatalf("worker: %v", err)
				}
			}
			checkStore(t, store, urls)
			for i, s := range sites {
				if p := s.peak.Load(); p > 2 || p < 1 {
					t.Errorf("host %d had %d requests at once; --per-host 2", i, p)
				}
			}
		})
	}
}

// 10,000 jobs drain with none lost and none stored twice.
func TestQueueTenThousand(t *testing.T) {
	for _, m := range queueModes(t) {
		t.Run(m.name, func(t *testing.T) {
			var sites []*countingSite
			for range 8 {
				sites = append(sites, newCountingSite(t, 0))
			}
			q := m.fresh(t)
			var urls []string
			for i := range 10000 {
				urls = append(urls, fmt.Sprintf("%s/n/%d", sites[i%len(sites)].URL, i))
			}
			enqueue(t, q, urls)
			store := t.TempDir()
			start := time.Now()
			a := startWorker(t, q, store, "--parallel", "16", "--per-host", "4", "--drain")
			b := startWorker(t, q, store, "--parallel", "16", "--per-host", "4", "--drain")
			for _, w := range []*exec.Cmd{a, b} {
				if err := w.Wait(); err != nil {
					t.Fatalf("worker: %v", err)
				}
			}
			took := time.Since(start)
			checkStore(t, store, urls)
			r := runFetch(t, nil, append([]string{"results", "--json"}, q...)...)
			wantCode(t, r, 0, "fetch results")
			var st struct{ Queued, InFlight, Done, Failed int }
			if err := json.Unmarshal(r.Stdout, &st); err != nil || st.Done != len(urls) || st.Queued != 0 || st.Failed != 0 {
				t.Errorf("fetch results = %s (%v), want %d done", r.Stdout, err, len(urls))
			}
			t.Logf("%d jobs in %v with 2 workers: %.0f jobs/s", len(urls), took.Round(time.Millisecond), float64(len(urls))/took.Seconds())
		})
	}
}

// A worker stopped (SIGSTOP) for longer than AckWait, and then continued,
// does not exit: its jobs went to the other worker meanwhile, and each is
// stored once in their shared store.
func TestQueuePausedWorker(t *testing.T) {
	for _, m := range queueModes(t) {
		t.Run(m.name, func(t *testing.T) {
			site := newCountingSite(t, 100*time.Millisecond)
			q := m.fresh(t)
			var urls []string
			for i := range 60 {
				urls = append(urls, fmt.Sprintf("%s/p/%d", site.URL, i))
			}
			// Batches of 8, so that both workers have some of the one
			// host's 60 jobs.
			enqueue(t, q, urls, "--batch", "8")
			// A store each: the commit point is the queue's, so that a
			// result is stored once across the fleet, not per store.
			store, pausedStore := t.TempDir(), t.TempDir()
			other := startWorker(t, q, store, "--parallel", "2", "--per-host", "8")
			paused := startWorker(t, q, pausedStore, "--parallel", "4", "--per-host", "8", "--drain")
			waitUntil(t, "both fetch", func() bool { return site.active.Load() >= 5 })
			paused.Process.Signal(syscall.SIGSTOP)
			time.Sleep(8 * time.Second) // the fault: four times --ack-wait 2
			paused.Process.Signal(syscall.SIGCONT)
			if err := waitExit(paused, 2*time.Minute); err != nil {
				t.Fatalf("the paused worker: %v", err)
			}
			waitUntil(t, "every job is done", func() bool {
				r := runFetch(t, nil, append([]string{"results", "--json"}, q...)...)
				return strings.Contains(string(r.Stdout), fmt.Sprintf(`"done":%d`, len(urls)))
			})
			other.Process.Signal(syscall.SIGTERM)
			if err := waitExit(other, time.Minute); err != nil {
				t.Fatalf("the other worker: %v", err)
			}
			merged := filepath.Join(t.TempDir(), "merged")
			mergeStores(t, merged, store, pausedStore)
			checkStore(t, merged, urls)
			checkResults(t, q, len(urls))
		})
	}
}

// mergeStores makes dir a store of the records and bodies of stores, as
// an operator merging the stores of several machines would.
func mergeStores(t *testing.T, dir string, stores ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var lines []byte
	for _, s := range stores {
		b, err := os.ReadFile(filepath.Join(s, "results.jsonl"))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		lines = append(lines, b...)
		es, err := os.ReadDir(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if len(e.Name()) != 64 {
				continue // not a body
			}
			b, err := os.ReadFile(filepath.Join(s, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), lines, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The worker that runs the embedded server is killed: another takes the
// server over, and drains the queue without a job dropped by a slow
// consumer or waiting for long.
func TestQueueKilledServerHost(t *testing.T) {
	site := newCountingSite(t, 50*time.Millisecond)
	q := []string{"--state", t.TempDir()}
	var urls []string
	for i := range 200 {
		urls = append(urls, fmt.Sprintf("%s/e/%d", site.URL, i))
	}
	enqueue(t, q, urls)
	store := t.TempDir()
	// enqueue ran the server and exited; the first worker serves it now.
	host := startWorker(t, q, store, "--parallel", "4", "--per-host", "16")
	waitUntil(t, "the host fetches", func() bool { return site.requests.Load() >= 10 })
	survivor := startWorker(t, q, store, "--parallel", "8", "--per-host", "16", "--drain")
	waitUntil(t, "both fetch", func() bool { return site.requests.Load() >= 40 })
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	start := time.Now()
	if err := waitExit(survivor, 2*time.Minute); err != nil {
		t.Fatalf("survivor: %v", err)
	}
	t.Logf("the survivor drained the rest in %v after the host was killed", time.Since(start).Round(time.Millisecond))
	checkStore(t, store, urls)
	checkResults(t, q, len(urls))
}
