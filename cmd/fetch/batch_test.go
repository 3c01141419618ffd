package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fullWriter fails every write, as stdout on /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// Output that could not be written is a failure (exit 1, one line naming
// the URL), sequential or parallel, fetch or --dry-run or -I.
func TestStdoutWriteFailure(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("alpha\n"), 0o644)
	os.WriteFile(b, []byte("beta\n"), 0o644)
	for _, args := range [][]string{
		{"file://" + a},
		{"file://" + a, "file://" + b},
		{"--parallel", "2", "file://" + a, "file://" + b},
		{"--dry-run", "file://" + a},
		{"--dry-run", "--parallel", "2", "file://" + a, "file://" + b},
		{"-I", "--parallel", "2", "file://" + a, "file://" + b},
	} {
		var errb bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), fullWriter{}, &errb)
		if code != 1 || !strings.Contains(errb.String(), "no space left") || !strings.Contains(errb.String(), a) {
			t.Errorf("fetch %q to a full stdout: exit %d, stderr %q; want 1 and a line naming %s", args, code, errb.String(), a)
		}
	}
}

// writeCounter counts the calls to Write, empty ones too.
type writeCounter struct{ calls int }

func (w *writeCounter) Write(p []byte) (int, error) {
	w.calls++
	return len(p), nil
}

// With -O, parallel transfers go to their files and stdout is not touched,
// not even by an empty write per URL; a URL that fails writes nothing to
// stdout either.
func TestRemoteNameParallelLeavesStdout(t *testing.T) {
	dir, od := t.TempDir(), t.TempDir()
	var args []string
	args = append(args, "--parallel", "3", "-O", "--output-dir", od)
	for _, n := range []string{"a", "b", "c", "d"} {
		os.WriteFile(filepath.Join(dir, n), []byte(n+"\n"), 0o644)
		args = append(args, "file://"+filepath.Join(dir, n))
	}
	args = append(args, "file://"+filepath.Join(dir, "missing"))
	var out writeCounter
	var errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "missing") {
		t.Errorf("exit %d, stderr %q; want a failure naming the missing file", code, errb.String())
	}
	if out.calls != 0 {
		t.Errorf("stdout got %d writes, want none", out.calls)
	}
	for _, n := range []string{"a", "b", "c", "d"} {
		if b, err := os.ReadFile(filepath.Join(od, n)); err != nil || string(b) != n+"\n" {
			t.Errorf("%s: %q, %v", n, b, err)
		}
	}
}

// The real /dev/full, through the binary's own stdout.
func TestStdoutDevFull(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/dev/full is Linux's")
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("data\n"), 0o644)
	for _, args := range [][]string{
		{"--parallel", "2", "file://" + p, "file://" + p},
		{"--dry-run", "file://" + p},
	} {
		var errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), full, &errb); code != 1 {
			t.Errorf("fetch %q > /dev/full: exit %d (%s), want 1", args, code, errb.String())
		}
	}
}

// -K streams: URLs are fetched as they are read, so a list on stdin that
// has not ended yet has its first URLs fetched already.
func TestInputFileStreams(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.WriteFile(a, []byte("alpha\n"), 0o644)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	seen := make(chan struct{})
	out := &notifyWriter{seen: seen}
	done := make(chan int)
	go func() {
		var errb bytes.Buffer
		done <- run(context.Background(), []string{"-K", "-"}, pr, out, &errb)
	}()
	fmt.Fprintf(pw, "file://%s\nfile://%s\n", a, a)
	select {
	case <-seen: // the first URLs were fetched while the list is still open
	case <-time.After(10 * time.Second):
		pw.Close()
		<-done
		t.Fatal("nothing fetched while the -K list was still open: it is read whole first")
	}
	fmt.Fprintf(pw, "file://%s\n", a)
	pw.Close()
	if code := <-done; code != 0 || out.String() != "alpha\nalpha\nalpha\n" {
		t.Errorf("exit %d, out %q", code, out.String())
	}
}

// notifyWriter closes seen once two lines were written. (It has no
// ReadFrom, so every byte passes through Write.)
type notifyWriter struct {
	buf  bytes.Buffer
	seen chan struct{}
}

func (w *notifyWriter) String() string { return w.buf.String() }

func (w *notifyWriter) Write(p []byte) (int, error) {
	n, err := w.buf.Write(p)
	if w.buf.Len() >= len("alpha\nalpha\n") && w.seen != nil {
		close(w.seen)
		w.seen = nil
	}
	return n, err
}

// --rate takes a positive number of requests a second.
func TestRateOption(t *testing.T) {
	for _, tt := range []struct {
		arg  string
		ok   bool
		want float64
	}{{"2", true, 2}, {"0.5", true, 0.5}, {"0", false, 0}, {"-1", false, 0}, {"x", false, 0}} {
		c, err := parseArgs([]string{"--rate", tt.arg, "file:///x"})
		if (err == nil) != tt.ok || (err == nil && c.batch.rate != tt.want) {
			t.Errorf("--rate %s: %v, %v", tt.arg, c, err)
		}
	}
}

// With --parallel, the exit code is that of the first failure in
// command-line order, whatever order they failed in.
func TestParallelFirstFailureInOrder(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.WriteFile(a, []byte("alpha\n"), 0o644)
	out, errs, code := fetchCmd(t, "", "--parallel", "4", "file://"+a, "mystery://h/x", "file://"+dir+"/missing", "file://"+a)
	if code != 4 || out != "alpha\nalpha\n" || strings.Count(errs, "\n") != 2 {
		t.Errorf("exit %d, out %q, stderr %q; want 4 (unsupported, the first failure), two alphas and two lines", code, out, errs)
	}
}
