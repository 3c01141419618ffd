package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// runQueue runs one fetch-queue command in process and fails the test
// unless it exits 0.
func runQueue(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("fetch-queue %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// stored returns the status of each URL in store's results.jsonl, and
// whether its body is there.
func stored(t *testing.T, store string) map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join(store, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]int{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r struct {
			URL    string `json:"url"`
			Status int    `json:"status"`
			Size   int64  `json:"size"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		got[r.URL] = r.Status
	}
	return got
}

// A worker is safe by default: a job's file: URL is refused unless
// --allow-schemes names file, and --max-filesize refuses a larger body
// (said up front or not), storing nothing of it.
func TestWorkerPolicy(t *testing.T) {
	big := strings.Repeat("x", 200_000)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Header().Set("Content-Length", fmt.Sprint(len(big)))
			fmt.Fprint(w, big)
		case "/chunked":
			for range 20 {
				fmt.Fprint(w, big[:10_000])
				w.(http.Flusher).Flush()
			}
		default:
			fmt.Fprint(w, "small")
		}
	}))
	defer site.Close()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + filepath.ToSlash(secret)
	urls := []string{fileURL, site.URL + "/big", site.URL + "/chunked", site.URL + "/small"}

	state, store := t.TempDir(), t.TempDir()
	runQueue(t, append([]string{"enqueue", "--state", state}, urls...)...)
	runQueue(t, "worker", "--state", state, "--store", store, "--drain", "-s", "--max-filesize", "100000")
	got := stored(t, store)
	want := map[string]int{fileURL: 11, site.URL + "/big": 12, site.URL + "/chunked": 12, site.URL + "/small": 0}
	for u, code := range want {
		if c, ok := got[u]; !ok || c != code {
			t.Errorf("%s: status %d (recorded: %v), want %d", u, c, ok, code)
		}
	}
	entries, _ := os.ReadDir(store)
	var bodies []string
	for _, e := range entries {
		if n := e.Name(); n != "results.jsonl" && !strings.HasPrefix(n, ".") {
			bodies = append(bodies, n)
		}
	}
	if len(bodies) != 1 {
		t.Errorf("the store holds the bodies %v; want only the small one", bodies)
	}

	state, store = t.TempDir(), t.TempDir()
	runQueue(t, "enqueue", "--state", state, fileURL)
	runQueue(t, "worker", "--state", state, "--store", store, "--drain", "-s", "--allow-schemes", "file,http")
	if c, ok := stored(t, store)[fileURL]; !ok || c != 0 {
		t.Errorf("with --allow-schemes file: status %d, recorded %v; want it stored", c, ok)
	}
}

// The records are exported from the results stream; a failed URL is
// enqueued again by --retry-failed and fetched again, and once it
// succeeds it is no longer among the failed; enqueue reports what it did.
func TestRetryFailedAndExport(t *testing.T) {
	var flaky atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/flaky" && flaky.Add(1) == 1 {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer site.Close()
	state, store := t.TempDir(), t.TempDir()
	q := []string{"--state", state}
	out := runQueue(t, append([]string{"enqueue", "--json"}, append(q, site.URL+"/flaky", site.URL+"/ok", site.URL+"/ok")...)...)
	if strings.TrimSpace(out) != `{"enqueued":2,"already_pending":1}` {
		t.Errorf("enqueue reported %s", out)
	}
	runQueue(t, append([]string{"worker", "--store", store, "--drain", "-s"}, q...)...)
	if out := runQueue(t, append([]string{"results", "--export", "--failed", "--json"}, q...)...); strings.Count(out, "\n") != 1 || !strings.Contains(out, `/flaky","status":7`) {
		t.Errorf("the failed after the first run: %q", out)
	}
	out = runQueue(t, append([]string{"enqueue", "--retry-failed"}, q...)...)
	if !strings.HasPrefix(out, "enqueued 1 jobs (0 already pending") {
		t.Errorf("enqueue --retry-failed reported %q", out)
	}
	runQueue(t, append([]string{"worker", "--store", store, "--drain", "-s"}, q...)...)
	if out := runQueue(t, append([]string{"results", "--export", "--failed"}, q...)...); out != "" {
		t.Errorf("still failed after the retry: %q", out)
	}
	all := runQueue(t, append([]string{"results", "--export", "--json"}, q...)...)
	if n := strings.Count(all, "\n"); n != 3 || flaky.Load() != 2 {
		t.Errorf("%d records exported, %d fetches of /flaky; want 3 and 2:\n%s", n, flaky.Load(), all)
	}
	if got := stored(t, store)[site.URL+"/flaky"]; got != 0 {
		t.Errorf("/flaky's last line in the store has status %d", got)
	}
}

// A worker's counts are served on --metrics in Prometheus's text format
// while it runs, and "results --json" shows what each worker published.
func TestWorkerMetrics(t *testing.T) {
	addrs := make(chan string, 1)
	metricsListening = func(a string) { addrs <- a }
	defer func() { metricsListening = func(string) {} }()
	release := make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
		}
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "hello")
	}))
	defer site.Close()
	state, store := t.TempDir(), t.TempDir()
	// One job a message, so that two are stored while the third is held
	// (a batch's records are stored together).
	runQueue(t, "enqueue", "--state", state, "--batch", "1", site.URL+"/a", site.URL+"/missing", site.URL+"/slow")
	done := make(chan string, 1)
	go func() {
		done <- runQueue(t, "worker", "--state", state, "--store", store, "--drain", "-s", "--id", "w-test", "--metrics", "127.0.0.1:0")
	}()
	addr := <-addrs
	var text string
	for range 200 {
		res, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(res.Body)
		res.Body.Close()
		text = b.String()
		if strings.Contains(text, `fetch_queue_jobs_total{worker="w-test",outcome="failed"} 1`) &&
			strings.Contains(text, `fetch_queue_jobs_total{worker="w-test",outcome="done"} 1`) {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	close(release)
	<-done
	for _, want := range []string{`outcome="done"} 1`, `fetch_queue_errors_total{worker="w-test",kind="not found"} 1`, `fetch_queue_bytes_total{worker="w-test"} 5`} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in /metrics:\n%s", want, text)
		}
	}
	out := runQueue(t, "results", "--state", state, "--json")
	var r struct {
		Done    int `json:"done"`
		Workers []struct {
			Worker string `json:"worker"`
			Counts struct {
				Done   int `json:"done"`
				Failed int `json:"failed"`
			} `json:"counts"`
		} `json:"workers"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Done != 2 || len(r.Workers) != 1 ||
		r.Workers[0].Worker != "w-test" || r.Workers[0].Counts.Done != 2 || r.Workers[0].Counts.Failed != 1 {
		t.Errorf("results --json = %s (%v)", out, err)
	}
}
