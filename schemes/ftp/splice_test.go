package ftp

import (
	"bytes"
	"context"
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
	big := make([]byte, 2*(4<<20)+12345)
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
		got, spliced, err := fetchtest.CopyToFile(t, res.Body, nil)
		res.Body.Close()
		cancel()
		if fetch.KindOf(err) != tt.kind {
			t.Errorf("%s: %v (kind %d), want kind %d", u, err, fetch.KindOf(err), tt.kind)
		}
		if !spliced {
			t.Errorf("%s: the file's ReadFrom never got the socket", u)
		}
		if tt.kind != 0 {
			continue
		}
		if !bytes.Equal(got, s.files[tt.path]) {
			t.Errorf("%s: the file of %d bytes differs from the server's %d", u, len(got), len(s.files[tt.path]))
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
		var end func()
		switch how {
		case "cancel":
			end = cancel
		case "close":
			end = func() { res.Body.Close() }
		}
		_, _, err = fetchtest.CopyUntilEnded(t, res.Body, end)
		if err == nil {
			t.Errorf("%s: the copy succeeded", how)
		} else if how != "close" && fetch.KindOf(err) != want {
			t.Errorf("%s: %v (kind %d), want kind %d", how, err, fetch.KindOf(err), want)
		}
		res.Body.Close()
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
	got, spliced, err := fetchtest.CopyToFile(t, res.Body, nil)
	if err != nil {
		t.Fatalf("a slow transfer failed: %v", err)
	}
	if !spliced {
		t.Error("the file's ReadFrom never got the socket")
	}
	if !bytes.Equal(got, data) {
		t.Errorf("the file holds %d bytes, want the %d sent", len(got), len(data))
	}
}
