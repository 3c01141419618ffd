package mailto

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/url"
)

// FuzzAddress checks that Address never panics and never returns an
// address that could break an SMTP command line.
func FuzzAddress(f *testing.F) {
	for _, s := range []string{"joe@example.com", "joe%25x@example.com", "%22a%20b%22@x", "Joe%20%3Cj@x%3E", "a@b,c@d", "%0D%0A@x", "@", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := url.ParseLenient("mailto:" + s)
		if err != nil {
			return
		}
		a, err := Address(u)
		if err != nil {
			return
		}
		if strings.ContainsAny(a, "\r\n\x00<>") || !strings.Contains(a, "@") {
			t.Errorf("Address(mailto:%s) = %q", s, a)
		}
	})
}

// FuzzMessage checks that any message is either refused or written out
// with a blank line after its header and its body intact.
func FuzzMessage(f *testing.F) {
	for _, s := range []string{"Subject: x\n\nbody\n", "no header\n", "\nbody", "A: b\r\n c\r\n\r\nx", "From: a@b\nTo: c@d\n", "x:y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := readMessage(strings.NewReader(s))
		if err != nil {
			return
		}
		m.complete("to@example.com", "from@example.com", "example.com", time.Unix(0, 0))
		var out bytes.Buffer
		if rerr, werr := m.writeTo(&out); rerr != nil || werr != nil {
			t.Fatalf("writeTo: %v, %v", rerr, werr)
		}
		o := out.String()
		for _, h := range []string{"To:", "From:", "Date:", "Message-ID:"} {
			if !strings.Contains(strings.ToLower(o), strings.ToLower(h)) {
				t.Errorf("output lacks %s: %q", h, o)
			}
		}
		if len(o) < len(s) {
			t.Errorf("output %q shorter than input %q", o, s)
		}
	})
}
