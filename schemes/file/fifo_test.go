//go:build unix

package file

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

// TestCloseAbortsRead checks that Close, called while a Read waits on a
// pipe that nothing writes to, ends that Read at once.
func TestCloseAbortsRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// A writer that holds the pipe open and writes nothing.
	w, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	u, err := url.Parse(fileURL(p))
	if err != nil {
		t.Fatal(err)
	}
	res, err := (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := io.ReadAll(res.Body); done <- err }()
	time.Sleep(100 * time.Millisecond)
	res.Body.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not abort the blocked Read")
	}
}

// TestConformanceStalled runs the conformance kit with a pipe that sends
// its first bytes and then nothing, its writer held open.
func TestConformanceStalled(t *testing.T) {
	dir := t.TempDir()
	data := []byte(strings.Repeat("0123456789abcdef", 8<<10))
	if err := os.WriteFile(filepath.Join(dir, "big"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	w, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// The kit fetches the stalled resource twice and reads one byte
	// each time before it stalls.
	w.Write([]byte("the start"))
	fetchtest.Run(t, &Handler{}, fetchtest.Cases{
		Existing: fileURL(filepath.Join(dir, "big")),
		Want:     data,
		Missing:  fileURL(filepath.Join(dir, "missing")),
		Stalled:  fileURL(p),
	})
}
