package gopher

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rfc1738/fetch/fetch"
)

// TestUnstuffer checks RFC 1436 dot-unstuffing, strict and not, with reads
// of every size.
func TestUnstuffer(t *testing.T) {
	tests := []struct {
		in, want string
		strict   bool
		err      fetch.Kind
	}{
		{"a\r\n..b\r\n.c\r\n.\r\n", "a\r\n.b\r\nc\r\n", true, 0},
		{"a\n..b\n.\nafter\n", "a\n.b\n", true, 0},
		{".\r\n", "", true, 0},
		{"a\r\n..b\r\n", "a\r\n.b\r\n", true, fetch.Incomplete},
		{"", "", true, fetch.Incomplete},
		{"a\r\n..b\r\n.\r\n", "a\r\n.b\r\n\r\n", false, 0},
		{"..\r\n...x", ".\r\n..x", false, 0},
	}
	for _, tt := range tests {
		for _, wrap := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.HalfReader} {
			u := &unstuffer{r: bufio.NewReaderSize(wrap(strings.NewReader(tt.in)), 16), strict: tt.strict, lineStart: true}
			got, err := io.ReadAll(u)
			if string(got) != tt.want || (tt.err == 0) != (err == nil) || (tt.err != 0 && !errors.Is(err, tt.err)) {
				t.Errorf("unstuff(%q, strict %v) = %q, %v, want %q, %v", tt.in, tt.strict, got, err, tt.want, tt.err)
			}
		}
	}
}

// TestTextReads checks the hold-back reader with reads of every size.
func TestTextReads(t *testing.T) {
	tests := []struct{ in, want string }{
		{"x\r\n..y\r\n.\r\n", "x\r\n.y\r\n"},
		{"x\r\n..y\r\n", "x\r\n..y\r\n"},
		{"x\r\n.\r\ny\r\n", "x\r\n.\r\ny\r\n"},
		{"x\r\n.\r\ny\r\n.\r\n", "x\r\n\r\ny\r\n"},
		{"no dot", "no dot"},
		{"a.\r\n", "a.\r\n"},
	}
	for _, tt := range tests {
		for _, wrap := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.HalfReader, iotest.DataErrReader} {
			got, err := io.ReadAll((&Handler{HoldMemory: 2}).newText(wrap(strings.NewReader(tt.in)), nil, 1<<20))
			if err != nil || string(got) != tt.want {
				t.Errorf("text(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
			}
		}
		if err := iotest.TestReader((&Handler{}).newText(strings.NewReader(tt.in), nil, 1<<20), []byte(tt.want)); err != nil {
			t.Errorf("iotest.TestReader(text(%q)): %v", tt.in, err)
		}
	}
}
