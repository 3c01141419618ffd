//go:build integration

package integration_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// manyURLs returns n URLs over the ftp, http and gopher servers, in turn,
// and the bytes their concatenation must be.
func manyURLs(t *testing.T, n int) ([]string, []byte) {
	t.Helper()
	ftp := ftpBase(t)
	small, err := strconv.Atoi(env(t, "FETCH_IT_FTP_SMALL"))
	if err != nil {
		t.Fatal(err)
	}
	ftpDir := filepath.Join(os.Getenv("IT_DIR"), "ftp", "anon", "small")
	httpAddr, httpRoot := env(t, "FETCH_IT_HTTP_ADDR"), env(t, "FETCH_IT_HTTP_ROOT")
	gopher, _ := gopherBase(t)
	gopherRoot := env(t, "FETCH_IT_GOPHER_ROOT")
	httpFiles := []struct{ url, file string }{
		{"/hello.txt", "hello.txt"}, {"/dir/a.txt", "dir/a.txt"}, {"/dir/b.txt", "dir/b.txt"}, {"/with%20space.txt", "with space.txt"},
	}
	gopherFiles := []struct{ url, file string }{{"/0/text.txt", "text.txt"}, {"/0/sub/inner.txt", "sub/inner.txt"}}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var urls []string
	var want bytes.Buffer
	for i := range n {
		switch i % 3 {
		case 0:
			f := fmt.Sprintf("f%03d.bin", i/3%small+1)
			urls = append(urls, ftp+"/small/"+f)
			want.Write(read(filepath.Join(ftpDir, f)))
		case 1:
			f := httpFiles[i/3%len(httpFiles)]
			urls = append(urls, "http://"+httpAddr+f.url)
			want.Write(read(filepath.Join(httpRoot, f.file)))
		case 2:
			f := gopherFiles[i/3%len(gopherFiles)]
			urls = append(urls, gopher+f.url)
			// Gophernicus sends text items with CR LF line ends.
			want.Write(bytes.ReplaceAll(read(filepath.Join(gopherRoot, f.file)), []byte("\n"), []byte("\r\n")))
		}
	}
	return urls, want.Bytes()
}

// usage samples a running process's open descriptors and resident memory.
type usage struct {
	mu     sync.Mutex
	maxFDs int
	maxRSS int64 // KiB
}

func (u *usage) watch(pid int, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-time.After(10 * time.Millisecond):
		}
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			continue
		}
		rss := int64(0)
		if f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
					rss, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				}
			}
			f.Close()
		}
		u.mu.Lock()
		u.maxFDs = max(u.maxFDs, len(fds))
		u.maxRSS = max(u.maxRSS, rss)
		u.mu.Unlock()
	}
}

// 1000 URLs across vsftpd, nginx and gophernicus at --parallel 64, from a
// -K file: no error, every byte in command-line order, and descriptors
// and memory bounded by the parallelism, not by the number of URLs.
func TestBatchThousandURLs(t *testing.T) {
	urls, want := manyURLs(t, 1000)
	dir := t.TempDir()
	list := filepath.Join(dir, "urls.txt")
	os.WriteFile(list, []byte(strings.Join(urls, "\n")+"\n"), 0o644)
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(fetchBin(t), "--parallel", "64", "--per-host", "24", "--retry", "2", "-K", list)
	cmd.Stdout, cmd.Stderr = out, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var u usage
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() { u.watch(cmd.Process.Pid, done); close(watched) }()
	err = cmd.Wait()
	close(done)
	<-watched
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("exit %v, stderr:\n%s", err, stderr.String())
	}
	got, _ := os.ReadFile(out.Name())
	if !bytes.Equal(got, want) {
		t.Errorf("stdout: %d bytes (sha256 %x), want %d (sha256 %x) in command-line order", len(got), sha256.Sum256(got), len(want), sha256.Sum256(want))
	}
	t.Logf("1000 URLs in %v: at most %d descriptors, %d KiB resident", time.Since(start).Round(time.Millisecond), u.maxFDs, u.maxRSS)
	// 64 transfers, an FTP data connection each, some idle connections
	// kept for reuse, and the process's own: far below one per URL.
	if u.maxFDs > 3*64+32 {
		t.Errorf("%d descriptors open at once for --parallel 64", u.maxFDs)
	}
	if u.maxRSS > 256<<10 {
		t.Errorf("%d KiB resident", u.maxRSS)
	}
}

// Output that cannot be written fails the run, with --parallel too.
func TestBatchDevFull(t *testing.T) {
	addr := env(t, "FETCH_IT_HTTP_ADDR")
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	for _, args := range [][]string{
		{"http://" + addr + "/hello.txt"},
		{"--parallel", "2", "http://" + addr + "/hello.txt", "http://" + addr + "/dir/a.txt"},
		{"--dry-run", "http://" + addr + "/hello.txt"},
	} {
		cmd := exec.Command(fetchBin(t), args...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "hello.txt") {
			t.Errorf("fetch %q > /dev/full: %v, stderr %q; want exit 1 naming the URL", args, err, stderr.String())
		}
	}
}

// --rate spaces the requests to one host: 5 requests at 4 a second take
// at least a second (a lower bound only).
func TestBatchRate(t *testing.T) {
	u := "http://" + env(t, "FETCH_IT_HTTP_ADDR") + "/hello.txt"
	start := time.Now()
	r := runFetch(t, "", nil, "--parallel", "5", "--per-host", "5", "--rate", "4", u, u, u, u, u)
	wantCode(t, r, 0, "--rate 4")
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("5 requests at --rate 4 took %v", d)
	}
	if want := strings.Repeat("hello from nginx\n", 5); string(r.Stdout) != want {
		t.Errorf("stdout %q", r.Stdout)
	}
}

// On a terminal, --parallel draws a line per transfer in progress and a
// total below; with -s, or with stderr not a terminal, nothing.
func TestBatchProgress(t *testing.T) {
	addr := env(t, "FETCH_IT_HTTP_ADDR")
	bin := fetchBin(t)
	tm := newTmux(t)
	var urls []string
	// big.bin from /slow/ takes over a second on any machine, so that its
	// line is on the screen long enough to be seen.
	for range 3 {
		urls = append(urls, "http://"+addr+"/slow/big.bin")
	}
	for range 40 {
		urls = append(urls, "http://"+addr+"/hello.txt")
	}
	os.WriteFile(filepath.Join(tm.dir, "urls"), []byte(strings.Join(urls, "\n")+"\n"), 0o644)

	// The run lasts about 4 s (--rate 10 on one host), long enough to see.
	tm.line(bin + " --parallel 4 --per-host 4 --rate 10 -K urls > out; echo EXIT=$?")
	sawBar, sawTotal := false, false
	deadline := time.Now().Add(60 * time.Second)
	ended := regexp.MustCompile(`EXIT=\d`)
	for !ended.MatchString(tm.screen()) {
		s := tm.screen()
		sawBar = sawBar || strings.Contains(s, "big.bin") && strings.Contains(s, "64.0 MiB")
		sawTotal = sawTotal || strings.Contains(s, "total ") && strings.Contains(s, "/43")
		if time.Now().After(deadline) {
			t.Fatalf("the run did not end:\n%s", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
	final := tm.screen()
	if !strings.Contains(final, "EXIT=0") || !strings.Contains(final, "total 43/43") {
		t.Errorf("the final screen lacks the total 43/43 or exit 0:\n%s", final)
	}
	if !sawTotal {
		t.Errorf("no total line was drawn during the run:\n%s", final)
	}
	if !sawBar {
		t.Errorf("no line for a transfer in progress was drawn (big.bin):\n%s", final)
	}
	if fi, err := os.Stat(filepath.Join(tm.dir, "out")); err != nil || fi.Size() != 3*64<<20+40*int64(len("hello from nginx\n")) {
		t.Errorf("out: %v, %v", fi, err)
	}

	// -s: nothing on the terminal.
	tm.line("clear; " + bin + " -s --parallel 4 --per-host 4 -K urls > out; echo SILENT=$?")
	tm.waitFor("SILENT=0", 1)
	if s := tm.screen(); strings.Contains(s, "total") || strings.Contains(s, "MiB") {
		t.Errorf("-s drew progress:\n%s", s)
	}
	// stderr not a terminal: nothing written to it.
	tm.line(bin + " --parallel 4 --per-host 4 -K urls > out 2> err; echo PIPED=$?")
	tm.waitFor("PIPED=0", 1)
	if b, _ := os.ReadFile(filepath.Join(tm.dir, "err")); len(b) != 0 {
		t.Errorf("stderr to a file got %q", b)
	}
}
