package ftp

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzListing checks the NLST converter against a direct rewrite: every
// CR LF becomes LF, and a non-empty result ends in LF, however the input
// is split into reads.
func FuzzListing(f *testing.F) {
	for _, s := range []string{"a\r\nb\r\n", "a\r", "\r\r\n", "x\ny", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		want := strings.ReplaceAll(in, "\r\n", "\n")
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in)), iotest.HalfReader(strings.NewReader(in))} {
			got, err := io.ReadAll(newListing(io.NopCloser(r)))
			if err != nil || !bytes.Equal(got, []byte(want)) {
				t.Fatalf("listing(%q) = %q, %v, want %q", in, got, err, want)
			}
		}
	})
}

// FuzzReplies checks that no reply text makes the parsers panic or
// return a port out of range.
func FuzzReplies(f *testing.F) {
	for _, s := range []string{"Entering Extended Passive Mode (|||6446|)", "Entering Passive Mode (127,0,0,1,4,1)", `"/a ""b""" is cwd`, "(", "(|||", ")("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, ok := parseEPSV(s); ok && (p < 1 || p > 65535) {
			t.Fatalf("parseEPSV(%q) = %d", s, p)
		}
		if p, ok := parsePASV(s); ok && (p < 1 || p > 65535) {
			t.Fatalf("parsePASV(%q) = %d", s, p)
		}
		parsePWD(s)
	})
}
