package fetchtest

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// SpliceFile is an output file for tests of a handler's splice path: it
// notes whether its ReadFrom was handed a TCP socket itself (within an
// *io.LimitedReader, the reader an *os.File splices from on Linux), and
// shows the socket to OnSocket when that is not nil.
type SpliceFile struct {
	*os.File
	Spliced  bool
	OnSocket func(*net.TCPConn)
}

// ReadFrom notes the socket, then lets the *os.File copy.
func (s *SpliceFile) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if tc, ok := lr.R.(*net.TCPConn); ok {
			s.Spliced = true
			if s.OnSocket != nil {
				s.OnSocket(tc)
			}
		}
	}
	return s.File.ReadFrom(r)
}

// CopyToFile copies body into a new file in a test's temporary folder
// through io.Copy and a SpliceFile (with onSocket, which may be nil), as
// the command line copies a resource to -o. It returns the file's bytes,
// whether the file's ReadFrom was handed the socket, and the copy's
// error; a copy whose count differs from the file's size fails the test.
func CopyToFile(t testing.TB, body io.Reader, onSocket func(*net.TCPConn)) (got []byte, spliced bool, err error) {
	t.Helper()
	f, ferr := os.Create(filepath.Join(t.TempDir(), "out"))
	if ferr != nil {
		t.Fatal(ferr)
	}
	defer f.Close()
	spy := &SpliceFile{File: f, OnSocket: onSocket}
	n, err := io.Copy(spy, body)
	got, rerr := os.ReadFile(f.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	if n != int64(len(got)) {
		t.Errorf("io.Copy counted %d bytes, the file has %d", n, len(got))
	}
	return got, spy.Spliced, err
}

// CopyUntilEnded starts copying body into a new file (as CopyToFile, in a
// goroutine), lets the copy block for 300 ms, then calls end (which may be
// nil: a stall is then left to the idle timeout). It returns whether the
// file's ReadFrom got the socket, how long the copy took, and its error. A
// copy that has not ended 10 s after end fails the test at once.
func CopyUntilEnded(t testing.TB, body io.Reader, end func()) (spliced bool, took time.Duration, err error) {
	t.Helper()
	f, ferr := os.Create(filepath.Join(t.TempDir(), "out"))
	if ferr != nil {
		t.Fatal(ferr)
	}
	defer f.Close()
	spy := &SpliceFile{File: f}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := io.Copy(spy, body)
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // let the splice block
	if end != nil {
		end()
	}
	select {
	case err = <-done:
		return spy.Spliced, time.Since(start), err
	case <-time.After(10 * time.Second):
		t.Fatal("the copy did not end")
		return false, 0, nil
	}
}
