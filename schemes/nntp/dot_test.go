package nntp

import (
	"bufio"
	"bytes"
	"io"
	"net/textproto"
	"testing"
)

// decodeWith reads a block with the reader mk makes, in reads of size
// step, and returns the decoded bytes, the bytes left after the block and
// the final error.
func decodeWith(in []byte, step int, mk func(*bufio.Reader) io.Reader) (out, rest []byte, err error) {
	br := bufio.NewReaderSize(bytes.NewReader(in), 16)
	r := mk(br)
	buf := make([]byte, step)
	for {
		n, e := r.Read(buf)
		out = append(out, buf[:n]...)
		if e != nil {
			err = e
			break
		}
	}
	rest, _ = io.ReadAll(br)
	return out, rest, err
}

// checkDot compares newDotReader with textproto's DotReader on a block
// whose lines end in CR LF. (With bare LF line ends textproto misses a "."
// line that follows an empty line; TestDotReaderBareLF covers those.)
func checkDot(t *testing.T, in []byte, step int) {
	t.Helper()
	want, wrest, werr := decodeWith(in, step, func(br *bufio.Reader) io.Reader { return textproto.NewReader(br).DotReader() })
	got, grest, gerr := decodeWith(in, step, func(br *bufio.Reader) io.Reader { return newDotReader(br) })
	if gerr != io.EOF {
		grest, wrest = nil, nil // the connection is broken: what is left does not matter
	}
	if !bytes.Equal(got, want) || gerr != werr || !bytes.Equal(grest, wrest) {
		t.Errorf("decode(%q, step %d) = %q, %v, rest %q; textproto gives %q, %v, rest %q", in, step, got, gerr, grest, want, werr, wrest)
	}
}

func TestDotReader(t *testing.T) {
	for _, in := range []string{
		"",
		".\r\n",
		".\n",
		"a\r\nb\r\n.\r\nafter",
		"..a\r\n.\r\n",
		".a\r\n.b\n.\r\n",
		"x\ry\r\n.\r\n",
		"x\r\r\n.\r\n",
		".\rx\r\n.\r\n",
		"\r\n\r\n.\r\n",
		"line without end",
		"abc\r\n.",
		"abc\r\n.\r",
		"abcdefghijklmnopqrstuvwxyz0123456789\r\n.long line longer than the buffer, with a dot\r\n.\r\nrest",
		"a\r",
	} {
		for _, step := range []int{1, 2, 3, 7, 64} {
			checkDot(t, []byte(in), step)
		}
	}
}

func FuzzDotReader(f *testing.F) {
	for _, s := range []string{"a\r\nb\r\n.\r\n", ".\n", "..x\r\n.\rz\r\n.\r\n", "x\r\r\n.\r\n"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		// Make every line end CR LF (see checkDot).
		in = bytes.ReplaceAll(bytes.ReplaceAll(in, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
		checkDot(t, in, int(step%64)+1)
	})
}

func TestDotReaderBareLF(t *testing.T) {
	for _, tt := range []struct{ in, want, rest string }{
		{"a\n\n.\nrest", "a\n\n", "rest"},
		{"a\n..b\n.\n", "a\n.b\n", ""},
		{"\n.\n", "\n", ""},
		{"a\r\n\n.\r\n", "a\n\n", ""},
	} {
		got, rest, err := decodeWith([]byte(tt.in), 5, func(br *bufio.Reader) io.Reader { return newDotReader(br) })
		if string(got) != tt.want || err != io.EOF || string(rest) != tt.rest {
			t.Errorf("decode(%q) = %q, %v, rest %q; want %q, EOF, rest %q", tt.in, got, err, rest, tt.want, tt.rest)
		}
	}
}
