package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

// serveHTTP answers every request on a raw connection with reply(req),
// closing the connection after a reply that says Connection: close.
func serveHTTP(t *testing.T, reply func(r *http.Request) string) string {
	return fetchtest.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			r, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			resp := reply(r)
			if _, err := io.WriteString(c, resp); err != nil || strings.Contains(resp, "Connection: close\r\n") {
				return
			}
		}
	})
}

// -C - on a complete FILE against a server that ignores Range and then
// fails: FILE keeps its content, and no FILE.part takes its place.
func TestResumeKeepsFileWhenServerFails(t *testing.T) {
	addr := serveHTTP(t, func(r *http.Request) string {
		// The whole resource announced, a tenth of it sent, then the cut.
		return "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n" + strings.Repeat("n", 100)
	})
	dst := filepath.Join(t.TempDir(), "r.bin")
	old := bytes.Repeat([]byte("o"), 500)
	os.WriteFile(dst, old, 0o644)
	_, errs, code := fetchCmd(t, "", "-C", "-", "-o", dst, "http://"+addr+"/r.bin")
	if code == 0 {
		t.Fatalf("a cut transfer exited 0")
	}
	if got, err := os.ReadFile(dst); err != nil || !bytes.Equal(got, old) {
		t.Errorf("after a failed resume FILE holds %d bytes (%v), want its 500 old ones (%s)", len(got), err, errs)
	}
}

// A 416 whose Content-Range total is FILE's size means nothing remains:
// exit 0, FILE as it was, no FILE.part.
func TestResumeCompleteFile(t *testing.T) {
	var ranges []string
	addr := serveHTTP(t, func(r *http.Request) string {
		ranges = append(ranges, r.Header.Get("Range"))
		return "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */500\r\nContent-Length: 0\r\n\r\n"
	})
	dst := filepath.Join(t.TempDir(), "r.bin")
	old := bytes.Repeat([]byte("o"), 500)
	os.WriteFile(dst, old, 0o644)
	for range 2 {
		_, errs, code := fetchCmd(t, "", "-C", "-", "-o", dst, "http://"+addr+"/r.bin")
		if code != 0 {
			t.Errorf("resume of a complete file: exit %d (%s), want 0", code, errs)
		}
		if got, err := os.ReadFile(dst); err != nil || !bytes.Equal(got, old) {
			t.Errorf("FILE holds %d bytes (%v), want its 500", len(got), err)
		}
		if _, err := os.Stat(dst + ".part"); err == nil {
			t.Errorf("FILE.part left behind")
		}
	}
	if len(ranges) != 2 || ranges[0] != "bytes=500-" {
		t.Errorf("Range headers sent: %q, want bytes=500- twice", ranges)
	}
}

// FILE is not moved before the server has started to send the rest.
func TestResumeMovesFileOnlyOnData(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "f")
	os.WriteFile(dst, []byte("abc"), 0o644)
	f := &fileOut{final: dst, resume: true}
	off, err := f.open()
	if err != nil || off != 3 {
		t.Fatalf("open = %d, %v; want 3", off, err)
	}
	if err := f.startAt(3); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dst); err != nil {
		t.Fatalf("FILE moved before any byte of the rest: %v", err)
	}
	if n, err := f.ReadFrom(strings.NewReader("")); n != 0 || err != nil {
		t.Fatalf("ReadFrom(empty) = %d, %v", n, err)
	}
	if _, err := os.Stat(dst); err != nil {
		t.Fatalf("FILE moved for an empty rest: %v", err)
	}
	if n, err := f.ReadFrom(strings.NewReader("def")); n != 3 || err != nil {
		t.Fatalf("ReadFrom = %d, %v", n, err)
	}
	if _, err := os.Stat(dst + ".part"); err != nil {
		t.Fatalf("FILE not moved to FILE.part once the rest arrived: %v", err)
	}
	if err := f.commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "abcdef" {
		t.Errorf("resumed FILE = %q, want abcdef", got)
	}
}

// -C - with a complete-looking FILE and a server that resumes appends
// the rest to it.
func TestResumeFromFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	data := bytes.Repeat([]byte("0123456789"), 10000)
	os.WriteFile(src, data, 0o644)
	dst := filepath.Join(dir, "dst.bin")
	os.WriteFile(dst, data[:40000], 0o644)
	if _, errs, code := fetchCmd(t, "", "-C", "-", "-o", dst, "file://"+src); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, data) {
		t.Errorf("resumed file has %d bytes, want %d equal ones", len(got), len(data))
	}
	if _, err := os.Stat(dst + ".part"); err == nil {
		t.Error("FILE.part left behind")
	}
}

// A killed run's temporary file is removed by the next run into the same
// folder; those of live processes and other names are kept.
func TestStalePartsRemoved(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.WriteFile(src, []byte("x"), 0o644)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)

	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	deadPid := dead.Process.Pid
	if processAlive(deadPid) {
		t.Skipf("pid %d was reused already", deadPid)
	}
	stale := fmt.Sprintf(".f.bin.%d.0123abcd.part", deadPid)
	live := fmt.Sprintf(".f.bin.%d.0123abcd.part", os.Getppid())
	keep := []string{live, ".f.bin.part", "f.bin.part", ".f.bin.12.xyz.part", ".other.99999999999.0123abcd"}
	for _, n := range append([]string{stale}, keep...) {
		os.WriteFile(filepath.Join(out, n), []byte("left"), 0o644)
	}
	if _, errs, code := fetchCmd(t, "", "-o", filepath.Join(out, "f.bin"), "file://"+src); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(out, stale)); err == nil {
		t.Errorf("%s (of a process that is gone) was not removed", stale)
	}
	for _, n := range keep {
		if _, err := os.Stat(filepath.Join(out, n)); err != nil {
			t.Errorf("%s was removed: %v", n, err)
		}
	}
}

func TestStaleOwner(t *testing.T) {
	for _, tt := range []struct {
		name string
		pid  int
		ok   bool
	}{
		{".f.bin.123.0123abcd.part", 123, true},
		{".a.b.c.7.ffffffff.part", 7, true},
		{"..1.00000000.part", 1, true},
		{".f.bin.123.0123abc.part", 0, false},
		{".f.bin.123.0123abcg.part", 0, false},
		{".f.bin.+12.0123abcd.part", 0, false},
		{".f.bin.0.0123abcd.part", 0, false},
		{"f.bin.123.0123abcd.part", 0, false},
		{".f.bin.123.0123abcd", 0, false},
		{".f.bin.part", 0, false},
		{".0123abcd.part", 0, false},
	} {
		pid, ok := staleOwner(tt.name)
		if pid != tt.pid || ok != tt.ok {
			t.Errorf("staleOwner(%q) = %d, %v; want %d, %v", tt.name, pid, ok, tt.pid, tt.ok)
		}
	}
}

// readFromRecorder is an output that records whether ReadFrom did the copy.
type readFromRecorder struct {
	bytes.Buffer
	used bool
	err  error
}

func (r *readFromRecorder) ReadFrom(src io.Reader) (int64, error) {
	r.used = true
	n, _ := r.Buffer.ReadFrom(src)
	return n, r.err
}

// The count passes io.Copy's ReaderFrom path to the output, counting, and
// tells a failure of the output from one of the input.
func TestCountWriterReadFrom(t *testing.T) {
	rec := &readFromRecorder{}
	cw := &countWriter{w: rec}
	n, err := io.Copy(cw, struct{ io.Reader }{strings.NewReader("hello")})
	if n != 5 || err != nil || cw.n != 5 || !rec.used || rec.String() != "hello" {
		t.Fatalf("io.Copy = %d, %v; counted %d, ReadFrom used %v", n, err, cw.n, rec.used)
	}
	for _, tt := range []struct {
		err   error
		write bool
	}{
		{os.NewSyscallError("splice", syscall.ENOSPC), true},
		{&os.PathError{Op: "write", Path: "f", Err: syscall.EBADF}, true},
		{os.NewSyscallError("copy_file_range", syscall.EIO), true},
		{os.NewSyscallError("splice", syscall.ECONNRESET), false},
		{os.ErrDeadlineExceeded, false},
		{io.ErrUnexpectedEOF, false},
	} {
		cw := &countWriter{w: &readFromRecorder{err: tt.err}}
		cw.ReadFrom(strings.NewReader("x"))
		if got := cw.werr != nil; got != tt.write || (got && !errors.Is(cw.werr, tt.err)) {
			t.Errorf("error %v taken for the output's: %v, want %v", tt.err, got, tt.write)
		}
	}
}

// Bytes from a TCP connection reach an -o file through the file's own
// ReadFrom (splice on Linux), whole.
func TestOutputFromTCP(t *testing.T) {
	data := bytes.Repeat([]byte("tcp bytes "), 300000)
	addr := fetchtest.Serve(t, func(c net.Conn) { c.Write(data) })
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dst := filepath.Join(t.TempDir(), "tcp.bin")
	f := &fileOut{final: dst}
	if _, err := f.open(); err != nil {
		t.Fatal(err)
	}
	cw := &countWriter{w: f}
	n, err := io.Copy(cw, c)
	if err != nil || n != int64(len(data)) || cw.n != n {
		t.Fatalf("io.Copy = %d, %v (counted %d), want %d", n, err, cw.n, len(data))
	}
	if err := f.commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, data) {
		t.Errorf("file holds %d bytes, want the %d sent", len(got), len(data))
	}
}

// An empty write to a resume still waiting for the rest is no write.
func TestResumeEmptyWrite(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "f")
	os.WriteFile(dst, []byte("abc"), 0o644)
	f := &fileOut{final: dst, resume: true}
	if _, err := f.open(); err != nil {
		t.Fatal(err)
	}
	if err := f.startAt(3); err != nil {
		t.Fatal(err)
	}
	if n, err := f.Write(nil); n != 0 || err != nil {
		t.Errorf("Write(nil) = %d, %v; want 0, nil", n, err)
	}
	if err := f.commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "abc" {
		t.Errorf("FILE = %q, want abc", got)
	}
}

// A socket that stalls under an output file's splice is the connection's
// failure, not the file's: the count does not record it as a failed
// write (which would report a timeout as an output error).
func TestOutputSpliceStallNotWriteError(t *testing.T) {
	release := make(chan struct{})
	addr := fetchtest.Serve(t, func(c net.Conn) {
		c.Write(bytes.Repeat([]byte("x"), 1000))
		<-release
	})
	defer close(release)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	f := &fileOut{final: filepath.Join(t.TempDir(), "stall.bin")}
	if _, err := f.open(); err != nil {
		t.Fatal(err)
	}
	defer f.abort()
	cw := &countWriter{w: f}
	_, err = io.Copy(cw, c)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("io.Copy = %v, want the deadline", err)
	}
	if cw.werr != nil {
		t.Errorf("the stall was recorded as a failed write: %v", cw.werr)
	}
}

// -O names an http URL's file by the last segment of its path, decoded,
// the search part left out; a path that ends in "/" has no file name.
func TestRemoteNameHTTP(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http://h/a/b.txt", "b.txt"},
		{"https://h/b.txt", "b.txt"},
		{"http://h/a/b.txt?x=/y/z", "b.txt"},
		{"http://h/b%20c", "b c"},
		{"http://h/a/b?", "b"},
		{"http://h/a/", ""},
		{"http://h/", ""},
		{"http://h", ""},
		{"http://h/a/?q=x", ""},
		{"http://h/%2e%2e", ""},
		{"http://h/a%2fb", ""},
	} {
		u, err := (url.Parser{Lenient: true}).Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := remoteName(u)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("remoteName(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
