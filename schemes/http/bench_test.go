package http

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
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

// BenchmarkSmallClient is BenchmarkSmall against a server that only
// writes a canned reply, so that the allocations counted are the
// client's: a 1 KiB body on a reused connection, as -O of many small
// files fetches it.
func BenchmarkSmallClient(b *testing.B) {
	h := newHandler(b)
	benchCanned(b, func(u *url.URL) (*fetch.Resource, error) {
		return h.Fetch(context.Background(), &fetch.Request{URL: u})
	})
}

// BenchmarkSmallDo is BenchmarkSmallClient through a fetch.Client's Do,
// with the handler configured as schemes.Register configures it: the
// per-request cost of the library's whole path.
func BenchmarkSmallDo(b *testing.B) {
	c := &fetch.Client{}
	h := &Handler{}
	c.Register("http", h)
	b.Cleanup(func() { c.Close() })
	benchCanned(b, func(u *url.URL) (*fetch.Resource, error) {
		return c.Do(context.Background(), &fetch.Request{URL: u})
	})
}

// benchCanned fetches the canned server's 1 KiB file by get, once per
// iteration, reading each body to its end. get makes its Request itself,
// as a caller does, so that the count of allocations is a caller's.
func benchCanned(b *testing.B, get func(*url.URL) (*fetch.Resource, error)) {
	u := parse(b, "http://"+cannedServer(b)+"/small/f0001.bin")
	b.ReportAllocs()
	for b.Loop() {
		res, err := get(u)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err != nil || n != 1024 {
			b.Fatalf("copied %d bytes, %v", n, err)
		}
	}
}

// cannedServer starts a server that answers every request with the
// same reply, as nginx gives a small file, and returns its address.
func cannedServer(b *testing.B) string {
	reply := "HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: Mon, 23 Nov 2026 19:40:00 GMT\r\nContent-Type: application/octet-stream\r\nContent-Length: 1024\r\n" +
		"Last-Modified: Mon, 23 Nov 2026 19:39:08 GMT\r\nConnection: keep-alive\r\nETag: \"6b049674-400\"\r\nAccept-Ranges: bytes\r\n\r\n" + strings.Repeat("x", 1024)
	return fetchtest.Serve(b, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			for {
				line, err := br.ReadSlice('\n')
				if err != nil {
					return
				}
				if len(line) <= 2 {
					break
				}
			}
			if _, err := io.WriteString(c, reply); err != nil {
				return
			}
		}
	})
}

// BenchmarkReadResponse measures reading and framing the head of a small
// file's reply as nginx sends it.
func BenchmarkReadResponse(b *testing.B) {
	head := "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Tue, 24 Nov 2026 00:04:45 GMT\r\nContent-Type: application/octet-stream\r\nContent-Length: 1024\r\n" +
		"Last-Modified: Tue, 24 Nov 2026 00:04:17 GMT\r\nConnection: keep-alive\r\nETag: \"6b04d481-400\"\r\nAccept-Ranges: bytes\r\n\r\n"
	var sr strings.Reader
	br := bufio.NewReaderSize(&sr, 4<<10)
	b.ReportAllocs()
	for b.Loop() {
		sr.Reset(head)
		br.Reset(&sr)
		if _, err := readResponse(br, http.MethodGet, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseTime measures parsing a Last-Modified value.
func BenchmarkParseTime(b *testing.B) {
	for b.Loop() {
		if _, err := parseTime("Tue, 24 Nov 2026 00:04:17 GMT"); err != nil {
			b.Fatal(err)
		}
	}
}
