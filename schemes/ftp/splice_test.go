package ftp

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestSpliceToFile: io.Copy of a TYPE I body to an *os.File hands the
// file the socket itself, chunk after chunk, and keeps Read's rules: the
// bytes all there, and a cut transfer, a missing final reply or fewer
// bytes than SIZE announced an error of Kind Incomplete.
func TestSpliceToFile(t *testing.T) {
	s := newFakeServer(t)
	big := make([]byte, 2*fetch.SpliceChunk+12345)
	for i := range big {
		big[i] = byte(i * 7)
	}
	s.files["/big.bin"] = big
	s.files["/ok.bin"] = []byte("ok")
	s.files["/cut.bin"] = bytes.Repeat([]byte("x"), 100000)
	s.files["/nofinal.bin"] = []byte("all the bytes")
	s.files["/short.bin"] = []byte("fewer bytes")
	s.cut426["/cut.bin"] = true
	s.noFinal["/nofinal.bin"] = true
	s.sizeExtra["/short.bin"] = 10
	s.start()
	c := &fetch.Client{}
	c.Register("ftp", &Handler{})
	defer c.Close()
	dir := t.TempDir()
	tests := []struct {
		path string
		kind fetch.Kind
	}{
		{"/big.bin", 0},
		{"/ok.bin", 0},
		{"/cut.bin", fetch.Incomplete},
		{"/nofinal.bin", fetch.Incomplete},
		{"/short.bin", fetch.Incomplete},
	}
	for _, tt := range tests {
		u := "ftp://" + s.addr() + tt.path
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := c.Do(ctx, req(t, u))
		if err != nil {
			cancel()
			t.Fatalf("%s: %v", u, err)
		}
		f, err := os.Create(filepath.Join(dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		spy := &fetchtest.SpliceFile{File: f}
		n, err := io.Copy(spy, res.Body)
		res.Body.Close()
		cancel()
		f.Close()
		if fetch.KindOf(err) != tt.kind {
			t.Errorf("%s: %v (kind %d), want kind %d", u, err, fetch.KindOf(err), tt.kind)
		}
		if !spy.Spliced {
			t.Errorf("%s: the file's ReadFrom never got the socket", u)
		}
		if tt.kind != 0 {
			continue
		}
		got, _ := os.ReadFile(f.Name())
		if n != int64(len(got)) || !bytes.Equal(got, s.files[tt.path]) {
			t.Errorf("%s: %d bytes copied, file of %d differs from the server's %d", u, n, len(got), len(s.files[tt.path]))
		}
	}
}

// TestSpliceStalls: a splice waits for the data connection no longer than
// the idle time (Kind Timeout), and cancelling the context or closing the
// body ends it at once.
func TestSpliceStalls(t *testing.T) {
	s := newFakeServer(t)
	s.files["/held.bin"] = bytes.Repeat([]byte("h"), 1000)
	release := make(chan int)
	defer close(release)
	s.hold["/held.bin"] = release
	s.start()
	u := "ftp://" + s.addr() + "/held.bin"
	for _, how := range []string{"idle", "cancel", "close"} {
		h := &Handler{}
		ctx, cancel := context.WithCancel(context.Background())
		r := req(t, u)
		want := fetch.Timeout
		if how == "idle" {
			r.IdleTimeout = 500 * time.Millisecond
		} else {
			want = fetch.Canceled
		}
		res, err := h.Fetch(ctx, r)
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		f, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := io.Copy(f, res.Body)
			done <- err
		}()
		time.Sleep(300 * time.Millisecond) // let the splice block
		switch how {
		case "cancel":
			cancel()
		case "close":
			res.Body.Close()
		}
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: the copy succeeded", how)
			} else if how != "close" && fetch.KindOf(err) != want {
				t.Errorf("%s: %v (kind %d), want kind %d", how, err, fetch.KindOf(err), want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the copy did not end", how)
		}
		res.Body.Close()
		f.Close()
		cancel()
		h.Close()
	}
}

// TestSpliceSlowNotStalled: a server that sends slowly, less than a chunk
// in an idle time but never idle that long, is no stall: the splice goes
// on to the end (it once timed out one idle time into the chunk).
func TestSpliceSlowNotStalled(t *testing.T) {
	s := newFakeServer(t)
	data := bytes.Repeat([]byte("slow bytes, "), 40) // 480 bytes: 30 drips
	s.files["/slow.bin"] = data
	s.drip["/slow.bin"] = 60 * time.Millisecond
	s.start()
	h := &Handler{}
	defer h.Close()
	r := req(t, "ftp://"+s.addr()+"/slow.bin")
	r.IdleTimeout = 600 * time.Millisecond // the whole takes about 1.8 s
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := h.Fetch(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	spy := &fetchtest.SpliceFile{File: f}
	if _, err := io.Copy(spy, res.Body); err != nil {
		t.Fatalf("a slow transfer failed: %v", err)
	}
	if !spy.Spliced {
		t.Error("the file's ReadFrom never got the socket")
	}
	if got, _ := os.ReadFile(f.Name()); !bytes.Equal(got, data) {
		t.Errorf("the file holds %d bytes, want the %d sent", len(got), len(data))
	}
}
