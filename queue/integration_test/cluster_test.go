//go:build integration

package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// cluster is a JetStream cluster of Debian's nats-server processes that a
// test runs itself, to kill and restart its servers.
type cluster struct {
	t            *testing.T
	bin, dir     string
	ports, route []int
	cmds         []*exec.Cmd
}

// newCluster starts n servers (the binary servers/nats.sh published) and
// waits until JetStream answers; the test's end stops them.
func newCluster(t *testing.T, n int) *cluster {
	t.Helper()
	bin := os.Getenv("FETCH_IT_NATS_SERVER")
	if bin == "" {
		if os.Getenv("FETCH_IT_REQUIRE") == "1" {
			t.Fatal("FETCH_IT_NATS_SERVER is not set although every server was started")
		}
		t.Skip("FETCH_IT_NATS_SERVER is not set: servers/nats.sh was not started")
	}
	c := &cluster{t: t, bin: bin, dir: t.TempDir(), cmds: make([]*exec.Cmd, n)}
	for range n {
		c.ports = append(c.ports, freePort(t))
		c.route = append(c.route, freePort(t))
	}
	t.Cleanup(func() {
		for i := range c.cmds {
			c.kill(i)
		}
		if t.Failed() {
			c.logWarnings()
		}
	})
	for i := range n {
		c.start(i)
	}
	c.waitReady()
	return c
}

// freePort returns a port on 127.0.0.1 nothing listens on, from
// 10000-19999 as servers/lib.sh draws them (below the ephemeral range).
func freePort(t *testing.T) int {
	for range 1000 {
		p := 10000 + rand.IntN(10000)
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err == nil {
			ln.Close()
			return p
		}
	}
	t.Fatal("no free port")
	return 0
}

// name is the server name of node i.
func (c *cluster) name(i int) string { return fmt.Sprintf("fetch-q-%d", i) }

// url is the client URL of every node.
func (c *cluster) url() string {
	var us []string
	for _, p := range c.ports {
		us = append(us, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	return strings.Join(us, ",")
}

// start starts node i, with the store it had before.
func (c *cluster) start(i int) {
	c.t.Helper()
	var routes []string
	for _, p := range c.route {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	store := filepath.Join(c.dir, c.name(i))
	log, err := os.OpenFile(store+".log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(c.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(c.ports[i]), "-js", "-sd", store,
		"-n", c.name(i), "--cluster_name", "fetch-q", "--cluster", routes[i], "--routes", strings.Join(routes, ","))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	log.Close()
	c.cmds[i] = cmd
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", c.ports[i])); err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("nats-server %d does not listen", i)
		}
	}
}

// logWarnings logs the warnings and errors each server wrote (the last
// 40 of each), so that a failure on a CI machine says what the cluster
// went through.
func (c *cluster) logWarnings() {
	for i := range c.ports {
		data, err := os.ReadFile(filepath.Join(c.dir, c.name(i)) + ".log")
		if err != nil {
			c.t.Log(err)
			continue
		}
		var lines []string
		for l := range strings.Lines(string(data)) {
			if strings.Contains(l, "[WRN]") || strings.Contains(l, "[ERR]") || strings.Contains(l, "[FTL]") {
				lines = append(lines, strings.TrimRight(l, "\n"))
			}
		}
		n := len(lines)
		lines = lines[max(0, n-40):]
		c.t.Logf("%s: %d warnings and errors, the last %d:\n%s", c.name(i), n, len(lines), strings.Join(lines, "\n"))
	}
}

// kill kills node i with SIGKILL.
func (c *cluster) kill(i int) {
	if cmd := c.cmds[i]; cmd != nil {
		cmd.Process.Kill()
		cmd.Wait()
		c.cmds[i] = nil
	}
}

// js connects to the cluster for the test's own looks.
func (c *cluster) js() jetstream.JetStream {
	c.t.Helper()
	nc, err := nats.Connect(c.url(), nats.MaxReconnects(-1))
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		c.t.Fatal(err)
	}
	return js
}

// waitReady waits until the cluster has a JetStream meta leader.
func (c *cluster) waitReady() {
	c.t.Helper()
	js := c.js()
	waitUntil(c.t, "JetStream answers", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := js.AccountInfo(ctx)
		return err == nil
	})
}

// leaderOf returns the node that leads stream.
func (c *cluster) leaderOf(js jetstream.JetStream, stream string) int {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		c.t.Fatal(err)
	}
	info := s.CachedInfo()
	for i := range c.ports {
		if info.Cluster != nil && info.Cluster.Leader == c.name(i) {
			return i
		}
	}
	c.t.Fatalf("no leader for %s: %+v", stream, info.Cluster)
	return -1
}

// replicasOf returns the replicas of stream.
func replicasOf(t *testing.T, js jetstream.JetStream, stream string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().Config.Replicas
}

// The node leading the job stream is killed with SIGKILL while two
// workers drain the queue, and restarted 5 seconds later (or the whole
// cluster is): no worker exits before the queue is empty, every job is
// stored exactly once, and "fetch results" counts them all done, none left
// queued. With the default replicas (3 on this cluster of 3) the others go
// on at once; with --replicas 1, or the whole cluster down, the queue
// waits for the nodes to come back.
func TestQueueStreamLeaderKilled(t *testing.T) {
	for _, c := range []struct {
		name     string
		replicas []string
		want     int
		all      bool // the whole cluster, not the leader only
	}{
		{"default-replicas", nil, 3, false},
		{"replicas-1", []string{"--replicas", "1"}, 1, false},
		{"whole-cluster", nil, 3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newCluster(t, 3)
			js := cl.js()
			q := append([]string{"--nats", cl.url()}, c.replicas...)
			site := newCountingSite(t, 20*time.Millisecond)
			var urls []string
			for i := range 600 {
				urls = append(urls, fmt.Sprintf("%s/l/%d", site.URL, i))
			}
			enqueue(t, q, urls)
			for _, s := range []string{"FETCH_JOBS", "FETCH_RESULTS"} {
				if got := replicasOf(t, js, s); got != c.want {
					t.Errorf("%s has %d replicas, want %d", s, got, c.want)
				}
			}
			// The lease bucket is replicated only on servers whose
			// create-if-absent holds on a replicated stream (2.11 on);
			// Debian's is older.
			if got := replicasOf(t, js, "KV_FETCH_HOSTS"); got != 1 {
				t.Errorf("KV_FETCH_HOSTS has %d replicas on nats-server 2.9, want 1", got)
			}
			store := t.TempDir()
			start := time.Now()
			a := startWorker(t, q, store, "--parallel", "8", "--per-host", "16", "--drain")
			b := startWorker(t, q, store, "--parallel", "8", "--per-host", "16", "--drain")
			waitUntil(t, "a sixth of the jobs are fetched", func() bool { return int(site.requests.Load()) >= len(urls)/6 })
			victims := []int{cl.leaderOf(js, "FETCH_JOBS")}
			if c.all {
				victims = []int{0, 1, 2}
			}
			for _, v := range victims {
				cl.kill(v)
			}
			killed := time.Now()
			time.Sleep(5 * time.Second) // the fault: the nodes are down this long
			for _, v := range victims {
				cl.start(v)
			}
			t.Logf("killed nodes %v (the stream's leader first) after %v, restarted them 5 s later", victims, killed.Sub(start).Round(time.Millisecond))
			for _, w := range []*exec.Cmd{a, b} {
				if err := waitExit(w, 3*time.Minute); err != nil {
					t.Fatalf("worker: %v", err)
				}
			}
			t.Logf("drained %d jobs in %v", len(urls), time.Since(start).Round(time.Millisecond))
			checkStore(t, store, urls)
			checkResults(t, q, len(urls))
			if t.Failed() {
				logMissingResults(t, q, urls)
			}
		})
	}
}

// Replicas an operator raised are not lowered by a command that asks for
// fewer.
func TestQueueReplicasNeverLowered(t *testing.T) {
	cl := newCluster(t, 3)
	js := cl.js()
	q := []string{"--nats", cl.url(), "--replicas", "1"}
	enqueue(t, q, []string{"http://127.0.0.1:1/x"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, "FETCH_JOBS")
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.CachedInfo().Config
	cfg.Replicas = 3
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	wantCode(t, runFetch(t, nil, append([]string{"results"}, q...)...), 0, "fetch results --replicas 1")
	if got := replicasOf(t, js, "FETCH_JOBS"); got != 3 {
		t.Errorf("FETCH_JOBS has %d replicas after fetch results --replicas 1, want the 3 it was given", got)
	}
}

// logMissingResults logs the URLs of urls that have no record in the
// results stream, for a failure to say which were lost.
func logMissingResults(t *testing.T, q []string, urls []string) {
	t.Helper()
	r := runFetch(t, nil, append([]string{"results", "--export", "--json"}, q...)...)
	seen := map[string]bool{}
	for l := range strings.Lines(string(r.Stdout)) {
		var rec struct {
			URL string `json:"url"`
		}
		if json.Unmarshal([]byte(l), &rec) == nil {
			seen[rec.URL] = true
		}
	}
	var missing []string
	for _, u := range urls {
		if !seen[u] {
			missing = append(missing, u)
		}
	}
	t.Logf("%d of %d URLs have no record in the results stream: %v", len(missing), len(urls), missing[:min(len(missing), 50)])
}

// waitExit waits for a worker to exit, for at most d; an exit status
// other than 0 is an error, and so is still running after d.
func waitExit(cmd *exec.Cmd, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Kill()
		return fmt.Errorf("still running after %v", d)
	}
}

// checkResults fails the test unless "fetch results --json" counts n jobs
// done and nothing queued, in flight or failed.
func checkResults(t *testing.T, q []string, n int) {
	t.Helper()
	r := runFetch(t, nil, append([]string{"results", "--json"}, q...)...)
	wantCode(t, r, 0, "fetch results")
	var st struct {
		Queued   int `json:"queued"`
		InFlight int `json:"in_flight"`
		Done     int `json:"done"`
		Failed   int `json:"failed"`
	}
	if err := json.Unmarshal(r.Stdout, &st); err != nil || st.Done != n || st.Queued != 0 || st.InFlight != 0 || st.Failed != 0 {
		t.Errorf("fetch results = %s (%v), want %d done and nothing else", r.Stdout, err, n)
	}
}
