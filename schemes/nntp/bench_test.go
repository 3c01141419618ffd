package nntp

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// BenchmarkArticle measures a 4 MiB article's trip through Fetch and its
// dot-unstuffing Body, over one reused connection to the fake server.
func BenchmarkArticle(b *testing.B) {
	f := newFakeServer(b)
	var sb strings.Builder
	sb.WriteString("Subject: big\nMessage-ID: <big@example.org>\n\n")
	for i := 0; sb.Len() < 4<<20; i++ {
		if i%5 == 0 {
			sb.WriteString(".")
		}
		sb.WriteString("a line of an article body, about seventy-two characters long, give or take\n")
	}
	text := sb.String()
	f.add("local.big", 1, "big@example.org", text)
	addr := f.start(nil)
	h := &Handler{Server: addr}
	defer h.Close()
	u := parse(b, "news:big@example.org")
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		res, err := h.Fetch(context.Background(), &fetch.Request{URL: u})
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err != nil || n != int64(len(text)) {
			b.Fatalf("read %d bytes, %v; want %d", n, err, len(text))
		}
	}
}
