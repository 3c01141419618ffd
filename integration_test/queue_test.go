//go:build integration

package integration_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/url"
)

// The work-queue commands live in the program fetch-queue (module
// github.com/rfc1738/fetch/queue, whose own integration tests cover the
// queue against nats-server); these tests check that fetch hands them
// over, through the fetch-queue run.sh builds beside it.

// queueKey is a job's key: the hex SHA-256 of the normalized URL, the
// name of its body in a store.
func queueKey(t *testing.T, raw string) string {
	u, err := (&url.Parser{Lenient: true}).Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(u.Normalize().String()))
	return hex.EncodeToString(sum[:])
}

// A worker started as "fetch worker" (handed over to fetch-queue) fetches
// what "fetch enqueue" queued, and its --warc-file records each job,
// readable by warcio.js with every digest right.
func TestQueueWorkerWARC(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "body of %s\n", r.URL.Path)
	}))
	defer site.Close()
	state := []string{"--state", t.TempDir()}
	var urls []string
	for i := range 5 {
		urls = append(urls, fmt.Sprintf("%s/w/%d", site.URL, i))
	}
	r := runFetch(t, "", []byte(strings.Join(urls, "\n")+"\n"), append(append([]string{"enqueue"}, state...), "-K", "-")...)
	wantCode(t, r, 0, "fetch enqueue")
	store, file := t.TempDir(), filepath.Join(t.TempDir(), "worker.warc.gz")
	r = runFetch(t, "", nil, append(append([]string{"worker"}, state...), "--store", store, "-s", "--drain", "--warc-file", file)...)
	wantCode(t, r, 0, "fetch worker")

	f, err := os.Open(filepath.Join(store, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stored := map[string]bool{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var rec struct {
			URL    string `json:"url"`
			Status int    `json:"status"`
			SHA256 string `json:"sha256"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		body, err := os.ReadFile(filepath.Join(store, queueKey(t, rec.URL)))
		if err != nil || rec.Status != 0 || rec.SHA256 != sha256Hex(body) || stored[rec.URL] {
			t.Errorf("%+v: body %q, %v (or stored twice)", rec, body, err)
		}
		stored[rec.URL] = true
	}
	if len(stored) != len(urls) {
		t.Errorf("%d URLs stored, want %d", len(stored), len(urls))
	}

	recs := readWARC(t, file)
	checkWARCShape(t, recs)
	got := map[string]bool{}
	for _, r := range recs {
		if r.Type == "response" && r.Status == 200 {
			got[r.URI] = true
		}
	}
	for _, u := range urls {
		if !got[u] {
			t.Errorf("no response record for %s in %+v", u, recs)
		}
	}
}

// Without fetch-queue beside it or on PATH, "fetch worker" says how to
// install it and exits 4 (an operation this installation does not have).
func TestQueueProgramMissing(t *testing.T) {
	dir := t.TempDir()
	lone := filepath.Join(dir, "fetch")
	b, err := os.ReadFile(fetchBin(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(lone, "results")
	cmd.Env = append(os.Environ(), "PATH="+dir)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 4 || !strings.Contains(string(out), "go install ./queue/cmd/fetch-queue") {
		t.Errorf("fetch results without fetch-queue: %v\n%s", err, out)
	}
}
