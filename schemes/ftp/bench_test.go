package ftp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// BenchmarkRetr fetches a 4 MiB file from the in-process server.
func BenchmarkRetr(b *testing.B) {
	s := newFakeServer(b)
	s.files["/big.bin"] = bytes.Repeat([]byte{0xa5}, 4<<20)
	s.start()
	h := &Handler{}
	defer h.Close()
	u := parseB(b, "ftp://"+s.addr()+"/big.bin")
	b.SetBytes(4 << 20)
	for b.Loop() {
		res, err := h.Fetch(context.Background(), &fetch.Request{URL: u})
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}

// BenchmarkSmallFiles fetches small files in turn over one pooled
// connection.
func BenchmarkSmallFiles(b *testing.B) {
	s := newFakeServer(b)
	for i := range 100 {
		s.files[fmt.Sprintf("/small/f%03d.bin", i)] = bytes.Repeat([]byte{byte(i)}, 1024)
	}
	s.start()
	h := &Handler{}
	defer h.Close()
	i := 0
	for b.Loop() {
		u := parseB(b, fmt.Sprintf("ftp://%s/small/f%03d.bin", s.addr(), i%100))
		i++
		res, err := h.Fetch(context.Background(), &fetch.Request{URL: u})
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}

func parseB(b *testing.B, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		b.Fatal(err)
	}
	return u
}
