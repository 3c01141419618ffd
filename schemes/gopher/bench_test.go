package gopher

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

func benchFetch(b *testing.B, path, body string) {
	s := newServer(b, map[string]respond{"/x": send(body)})
	u, err := url.Parse("gopher://" + s.addr + "/" + path)
	if err != nil {
		b.Fatal(err)
	}
	h := &Handler{}
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for b.Loop() {
		res, err := h.Fetch(context.Background(), &fetch.Request{URL: u})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
	}
}

func BenchmarkFetchBinary(b *testing.B) { benchFetch(b, "9/x", string(binary(8<<20))) }

func BenchmarkFetchText(b *testing.B) {
	benchFetch(b, "0/x", strings.Repeat("a line of text of a usual length, more or less\r\n", 100000))
}

func BenchmarkFetchStuffedText(b *testing.B) {
	benchFetch(b, "0/x", ".start\r\n"+strings.Repeat("..a line of text of a usual length, more or less\r\n", 100000)+".\r\n")
}

func BenchmarkMenuReader(b *testing.B) {
	menu := strings.Repeat("0A text item with a display string\t/some/selector/path.txt\tgopher.example.org\t70\t+\r\n", 10000)
	b.SetBytes(int64(len(menu)))
	for b.Loop() {
		m := NewMenuReader(strings.NewReader(menu))
		for {
			if _, err := m.Next(); err != nil {
				break
			}
		}
	}
}
