package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStateSurvivesKill kills (SIGKILL; TerminateProcess on Windows) a
// crawl with --state at a random request and runs it again: the second
// run ends the crawl, every page is stored once, and at most --parallel
// pages were fetched twice, counted at the server (issue 25).
func TestStateSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command twice as a process")
	}
	const pages, parallel = 300, 4
	// The site: /site/ links to pages 0..9, page i to pages 10i+1..10i+10.
	var mu sync.Mutex
	count := map[string]int{}
	served := 0
	killAt := 2 + rand.N(pages-2) // a request of the first run, past the seed
	t.Logf("killing the first run at its request %d", killAt)
	reached, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		count[r.URL.Path]++
		served++
		n := served
		mu.Unlock()
		if n == killAt {
			close(reached) // the process is killed with this request in flight
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		var first int
		switch p := r.URL.Path; {
		case p == "/site/":
			first = 0
		case strings.HasPrefix(p, "/site/p") && strings.HasSuffix(p, ".html"):
			i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/site/p"), ".html"))
			if err != nil || i >= pages {
				http.NotFound(w, r)
				return
			}
			first = 10*i + 1
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body>%s\n", r.URL.Path)
		for k := first; k < first+10 && k < pages; k++ {
			fmt.Fprintf(w, "<a href=\"p%d.html\">%d</a>\n", k, k)
		}
		io.WriteString(w, "</body></html>\n")
	}))
	defer srv.Close()

	dir := t.TempDir()
	out, state := filepath.Join(dir, "out"), filepath.Join(dir, "state")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	command := func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, os.Args[0], "-r", "-l", "10", "--parallel", strconv.Itoa(parallel), "--no-robots",
			"--state", state, "--output-dir", out, "-s", srv.URL+"/site/")
		cmd.Env = append(os.Environ(), "FETCH_TEST_MAIN=1")
		return cmd
	}

	first := command()
	var errs strings.Builder
	first.Stderr = &errs
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- first.Wait() }()
	select {
	case <-reached:
		if err := first.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-exited
	case err := <-exited:
		t.Fatalf("the first run ended before its request %d: %v; stderr %q", killAt, err, errs.String())
	}
	close(release)

	second := command()
	if b, err := second.CombinedOutput(); err != nil {
		t.Fatalf("the second run: %v; output %q", err, b)
	}

	// Every page stored once: one file each, with its content, and no
	// temporary left.
	var files []string
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if len(files) != pages+1 {
		t.Errorf("%d files stored, want %d: %q", len(files), pages+1, files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		want := "/site/" + filepath.Base(f)
		if filepath.Base(f) == "index.html" {
			want = "/site/"
		}
		if err != nil || !strings.HasPrefix(string(b), "<html><body>"+want+"\n") {
			t.Errorf("%s: %.40q, %v; want the page %s", f, b, err, want)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	twice := 0
	for i := -1; i < pages; i++ {
		p := "/site/"
		if i >= 0 {
			p = fmt.Sprintf("/site/p%d.html", i)
		}
		switch n := count[p]; {
		case n == 0:
			t.Errorf("%s never fetched", p)
		case n == 2:
			twice++
		case n > 2:
			t.Errorf("%s fetched %d times", p, n)
		}
	}
	if twice > parallel || len(count) != pages+1 {
		t.Errorf("%d pages fetched twice (at most --parallel %d), %d paths asked for (want %d): %v", twice, parallel, len(count), pages+1, count)
	}
	t.Logf("%d requests in all, %d pages fetched twice", served, twice)
}
