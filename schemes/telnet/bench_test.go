package telnet

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// BenchmarkSessionRead measures reading a session's output (8 MiB of
// text, one IAC IAC every 4 KiB) through the telnet layer.
func BenchmarkSessionRead(b *testing.B) {
	chunk := []byte(strings.Repeat("x", 4094) + "\xff\xff")
	const total = 8 << 20
	addr, _ := serveB(b, func(p *peer) {
		for n := 0; n < total; n += len(chunk) {
			if _, err := p.c.Write(chunk); err != nil {
				return
			}
		}
	})
	u := parseB(b, "telnet://"+addr+"/")
	b.SetBytes(total * 4095 / 4096)
	b.ResetTimer()
	for range b.N {
		res, err := (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: u})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
	}
}

// BenchmarkWrite measures NVT encoding of typed text.
func BenchmarkWrite(b *testing.B) {
	addr, _ := serveB(b, func(p *peer) { io.Copy(io.Discard, p.r) })
	res, err := (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: parseB(b, "telnet://"+addr+"/")})
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	w := res.Body.(io.Writer)
	line := []byte(strings.Repeat("some typed text ", 255) + "\n")
	b.SetBytes(int64(len(line)))
	b.ResetTimer()
	for range b.N {
		if _, err := w.Write(line); err != nil {
			b.Fatal(err)
		}
	}
}
