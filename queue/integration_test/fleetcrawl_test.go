//go:build integration

package integration_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// writeTreeSite writes bench/crawl.sh's site of n pages into dir:
// index.html links to p0.html; page i links to pages 10i+1 .. 10i+10, to
// the index, to itself by "./" and "../<dir>/" spellings, and to one
// shared image. It returns the paths of its unique URLs under prefix (the
// folder's URL path, ending in "/").
func writeTreeSite(t *testing.T, dir, prefix string, n int) []string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(dir)
	write := func(file, body string) {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{prefix, prefix + "index.html", prefix + "logo.png"}
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "<html><body><a href=\"index.html\">home</a> <a href=\"./p%d.html\">me</a> <a href=\"../%s/p%d.html\">me</a>\n<img src=\"logo.png\">\n", i, name, i)
		for k := 10*i + 1; k <= 10*i+10 && k < n; k++ {
			fmt.Fprintf(&b, "<a href=\"p%d.html\">%d</a>\n", k, k)
		}
		b.WriteString("</body></html>\n")
		write(fmt.Sprintf("p%d.html", i), b.String())
		paths = append(paths, fmt.Sprintf("%sp%d.html", prefix, i))
	}
	write("index.html", "<html><body><a href=\"p0.html\">start</a></body></html>\n")
	write("logo.png", "\x89PNG"+strings.Repeat("\x00", 1000))
	return paths
}

// Issue 27's fleet crawl target on a smaller site, counted at the real
// server: "fetch enqueue -r" of bench/crawl.sh's site (500 pages) on
// nginx, three "fetch worker --drain" processes with a store each. nginx's
// access log has each of the site's unique URLs requested once, nothing
// else but robots.txt, once for the fleet; the stores hold every URL once
// across them. (bench/fleetcrawl.sh does the same with 5,000 pages.)
func TestQueueFleetCrawlNginx(t *testing.T) {
	addr, root := os.Getenv("FETCH_IT_HTTP_ADDR"), os.Getenv("FETCH_IT_HTTP_ROOT")
	if addr == "" || root == "" {
		if os.Getenv("FETCH_IT_REQUIRE") == "1" {
			t.Fatal("FETCH_IT_HTTP_ADDR is not set although every server was started")
		}
		t.Skip("FETCH_IT_HTTP_ADDR is not set: nginx (integration_test/servers/http.sh) was not started")
	}
	accessLog := filepath.Join(filepath.Dir(root), "logs", "access.log")
	const pages, workers = 500, 3
	for _, m := range queueModes(t) {
		t.Run(m.name, func(t *testing.T) {
			name := fmt.Sprintf("fleet-%s-%d", m.name, time.Now().UnixNano())
			paths := writeTreeSite(t, filepath.Join(root, name), "/"+name+"/", pages)
			base := "http://" + addr + "/" + name + "/"
			q := m.fresh(t)
			logBefore, _ := os.ReadFile(accessLog)
			r := runFetch(t, nil, append(append([]string{"enqueue"}, q...), "-r", "-l", "100", base)...)
			wantCode(t, r, 0, "fetch enqueue -r")
			var cmds []*exec.Cmd
			var stores []string
			for i := range workers {
				store := filepath.Join(t.TempDir(), fmt.Sprintf("w%d", i))
				stores = append(stores, store)
				cmds = append(cmds, startWorker(t, q, store, "--drain", "--parallel", "4", "--per-host", "4"))
			}
			for i, cmd := range cmds {
				if err := waitExit(cmd, 2*time.Minute); err != nil {
					t.Fatalf("worker %d: %v", i, err)
				}
			}
			logAfter, _ := os.ReadFile(accessLog)
			reqs := map[string]int{}
			for _, m := range regexp.MustCompile(`"GET (\S+) HTTP`).FindAllStringSubmatch(string(logAfter[len(logBefore):]), -1) {
				reqs[m[1]]++
			}
			for _, p := range paths {
				if reqs[p] != 1 {
					t.Errorf("nginx: %s requested %d times, want once", p, reqs[p])
				}
			}
			if len(reqs) != len(paths)+1 || reqs["/robots.txt"] != 1 {
				t.Errorf("nginx: %d paths requested (robots.txt %d times), want the site's %d and robots.txt once", len(reqs), reqs["/robots.txt"], len(paths))
			}
			stored := map[string]int{}
			for _, store := range stores {
				f, err := os.Open(filepath.Join(store, "results.jsonl"))
				if os.IsNotExist(err) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for sc := bufio.NewScanner(f); sc.Scan(); {
					var rec record
					if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
						t.Fatal(err)
					}
					if rec.Status != 0 {
						t.Errorf("%+v: want fetched", rec)
					}
					stored[rec.URL]++
				}
				f.Close()
			}
			for _, p := range paths {
				if u := "http://" + addr + p; stored[u] != 1 {
					t.Errorf("%s stored %d times, want once", u, stored[u])
				}
			}
			if len(stored) != len(paths) {
				t.Errorf("%d URLs stored, want the site's %d", len(stored), len(paths))
			}
		})
	}
}

// A fleet crawl started again after it ended fetches the site again,
// conditionally, at the real server: bench/crawl.sh's site of 100 pages on
// nginx, three workers sharing one store. The second "fetch enqueue -r"
// starts crawl 2; nginx's log has each unique URL requested once more,
// each answered 304 Not Modified (If-Modified-Since from the store's
// records), and robots.txt not again (the fleet keeps it).
func TestQueueFleetRecrawlNginx(t *testing.T) {
	addr, root := os.Getenv("FETCH_IT_HTTP_ADDR"), os.Getenv("FETCH_IT_HTTP_ROOT")
	if addr == "" || root == "" {
		if os.Getenv("FETCH_IT_REQUIRE") == "1" {
			t.Fatal("FETCH_IT_HTTP_ADDR is not set although every server was started")
		}
		t.Skip("FETCH_IT_HTTP_ADDR is not set: nginx (integration_test/servers/http.sh) was not started")
	}
	accessLog := filepath.Join(filepath.Dir(root), "logs", "access.log")
	const pages, workers = 100, 3
	for _, m := range queueModes(t) {
		t.Run(m.name, func(t *testing.T) {
			name := fmt.Sprintf("refleet-%s-%d", m.name, time.Now().UnixNano())
			paths := writeTreeSite(t, filepath.Join(root, name), "/"+name+"/", pages)
			base := "http://" + addr + "/" + name + "/"
			q := m.fresh(t)
			store := filepath.Join(t.TempDir(), "store") // shared by the workers
			// crawl runs "fetch enqueue -r" and the workers; it returns
			// nginx's statuses for each path requested meanwhile.
			crawl := func(want string) map[string][]string {
				t.Helper()
				logBefore, _ := os.ReadFile(accessLog)
				r := runFetch(t, nil, append(append([]string{"enqueue"}, q...), "-r", "-l", "100", base)...)
				wantCode(t, r, 0, "fetch enqueue -r")
				if !strings.Contains(string(r.Stdout), want) {
					t.Errorf("fetch enqueue -r said %q, want %q", r.Stdout, want)
				}
				var cmds []*exec.Cmd
				for range workers {
					cmds = append(cmds, startWorker(t, q, store, "--drain", "--parallel", "4", "--per-host", "4"))
				}
				for i, cmd := range cmds {
					if err := waitExit(cmd, 2*time.Minute); err != nil {
						t.Fatalf("worker %d: %v", i, err)
					}
				}
				logAfter, _ := os.ReadFile(accessLog)
				got := map[string][]string{}
				for _, m := range regexp.MustCompile(`"GET (\S+) HTTP/[0-9.]+" (\d+)`).FindAllStringSubmatch(string(logAfter[len(logBefore):]), -1) {
					got[m[1]] = append(got[m[1]], m[2])
				}
				return got
			}
			first := crawl("crawl started: 1 seeds queued")
			second := crawl("crawl 2 started: 1 seeds queued")
			for _, p := range paths {
				if s := first[p]; len(s) != 1 || s[0] != "200" {
					t.Errorf("crawl 1: %s answered %v, want one 200", p, s)
				}
				if s := second[p]; len(s) != 1 || s[0] != "304" {
					t.Errorf("crawl 2: %s answered %v, want one 304", p, s)
				}
			}
			if len(first["/robots.txt"]) != 1 || len(first) != len(paths)+1 || len(second) != len(paths) {
				t.Errorf("crawl 1 requested %d paths (robots.txt %d times), crawl 2 %d; want the site's %d, and robots.txt once in crawl 1", len(first), len(first["/robots.txt"]), len(second), len(paths))
			}
		})
	}
}
