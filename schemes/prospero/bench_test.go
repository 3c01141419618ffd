package prospero

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// BenchmarkFetchHuge fetches the 73200-byte huge.txt (59 packets, four
// windows) from the simulated server over loopback: attributes, contents,
// reassembly, ACKs and unquoting.
func BenchmarkFetchHuge(b *testing.B) {
	s := newSimServer(b, simReplies(b))
	s.start()
	h := &Handler{}
	u := mustParse(b, simURL(s, "/srv/prospero/pub/huge.txt"))
	b.SetBytes(73200)
	for b.Loop() {
		res, err := h.Fetch(context.Background(), &fetch.Request{URL: u})
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.Copy(io.Discard, res.Body); err != nil || n != 73200 {
			b.Fatalf("%d bytes, %v", n, err)
		}
		res.Body.Close()
	}
}

// BenchmarkUnquote streams 1 MiB of text, quoted as dirsrv quotes it,
// through the DATA token unquoter.
func BenchmarkUnquote(b *testing.B) {
	line := bytes.Repeat([]byte("row 00001 it's a line of text xxxxxxxxxxxxxxxxxxxxxxxx\n"), 1<<20/56)
	in := quoteData(line)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		d := &dataReader{r: bufio.NewReaderSize(bytes.NewReader(in), 32<<10)}
		if n, err := io.Copy(io.Discard, d); err != nil || n != int64(len(line)) {
			b.Fatalf("%d bytes, %v", n, err)
		}
	}
}
