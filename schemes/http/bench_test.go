package http

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// BenchmarkFetch measures a whole fetch of a 16 MiB body from an
// in-process server over loopback, through io.Copy as the CLI does.
func BenchmarkFetch(b *testing.B) {
	data := bytes.Repeat([]byte("fetch benchmark "), 1<<20) // 16 MiB
	srv := server(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data)
	})
	h := newHandler(b)
	u := parse(b, srv.URL+"/big")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := h.Fetch(context.Background(), &fetch.Request{URL: u})
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err != nil || n != int64(len(data)) {
			b.Fatalf("copied %d bytes, %v", n, err)
		}
	}
}

// BenchmarkSmall measures the per-request cost on a reused connection.
func BenchmarkSmall(b *testing.B) {
	srv := server(b, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	h := newHandler(b)
	u := parse(b, srv.URL+"/small")
	b.ReportAllocs()
	for b.Loop() {
		res, err := h.Fetch(context.Background(), &fetch.Request{URL: u})
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}
