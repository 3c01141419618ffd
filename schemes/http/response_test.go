package http

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rfc1738/fetch/fetch"
)

func TestParseContentRange(t *testing.T) {
	tests := []struct {
		in                 string
		first, last, total int64
		ok                 bool
	}{
		{"bytes 0-9/10", 0, 9, 10, true},
		{"bytes 5-19/20", 5, 19, 20, true},
		{"bytes 5-19/*", 5, 19, -1, true},
		{" bytes 1-1/2 ", 1, 1, 2, true},
		{"bytes 5-4/20", 0, 0, 0, false},
		{"bytes 5-20/20", 0, 0, 0, false},
		{"bytes -5-4/20", 0, 0, 0, false},
		{"bytes */20", 0, 0, 0, false},
		{"items 0-1/2", 0, 0, 0, false},
		{"bytes 0-1", 0, 0, 0, false},
		{"", 0, 0, 0, false},
	}
	for _, tt := range tests {
		f, l, n, err := parseContentRange(tt.in)
		if (err == nil) != tt.ok || f != tt.first || l != tt.last || n != tt.total {
			t.Errorf("parseContentRange(%q) = %d, %d, %d, %v; want %d, %d, %d, ok %v", tt.in, f, l, n, err, tt.first, tt.last, tt.total, tt.ok)
		}
	}
}

func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-9/10", "bytes 5-19/*", "bytes */20", "bytes 9223372036854775807-9223372036854775807/*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first, last, total, err := parseContentRange(s)
		if err != nil {
			return
		}
		if first < 0 || last < first || (total >= 0 && last >= total) {
			t.Errorf("parseContentRange(%q) = %d, %d, %d: inconsistent", s, first, last, total)
		}
	})
}

func TestRedactLocation(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://h/x", "http://h/x"},
		{"/relative", "/relative"},
		{"http://joe:secret@h/x", "http://joe:****@h/x"},
		{"ftp://joe:secret@h/x;type=i", "ftp://joe:****@h/x;type=i"},
		{"http://joe:sec ret@h/x y", "http://joe:****@h/x%20y"},
		{"//joe:secret@h/x", "//joe:****@h/x"},
	}
	for _, tt := range tests {
		if got := redactLocation(tt.in); got != tt.want || strings.Contains(got, "secret") {
			t.Errorf("redactLocation(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestControlCharacters checks that server text reaches errors and the
// trace with its control characters escaped: a terminal shows it, it does
// not obey it.
func TestControlCharacters(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		evil := "\x1b]0;PWNED\x07\x1b[2J\x9b31m"
		for _, reply := range []string{
			"HTTP/1.1 404 Not " + evil + "Found\r\nContent-Length: 0\r\n\r\n",
			"HTTP/1.1 200 OK\r\nX-Evil: a" + evil + "b\r\nContent-Length: 2\r\n\r\nok",
			"HTTP/1.1 302 Found\r\nLocation: /x" + evil + "\r\nContent-Length: 0\r\n\r\n",
		} {
			base := rawServer(t, reply, false)
			var tr bytes.Buffer
			h := tc.handler(t)
			res, _, err := get(t, h, &fetch.Request{URL: parse(t, base+"/"), Trace: fetch.NewTrace(&tr)})
			text := tr.String()
			if err != nil {
				text += err.Error()
			} else {
				for k, v := range res.Extra {
					text += k + v
				}
			}
			if hasControl(text) {
				t.Errorf("reply %q: control characters reach the trace or error:\n%q", reply, text)
			}
		}
	})
}

// hasControl reports whether s holds a control character other than the
// trace's line ends, a C1 control, or a byte that is not UTF-8.
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == utf8.RuneError {
			return true
		}
	}
	return false
}

// TestResourceFields checks the Resource's metadata from the reply's
// header fields, whatever the case the server writes their names in.
func TestResourceFields(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		for _, reply := range []string{
			"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\nETag: \"v1\"\r\nContent-Length: 2\r\n\r\nok",
			"HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\nlast-modified: Sun, 06 Nov 1994 08:49:37 GMT\r\netag: \"v1\"\r\ncontent-length: 2\r\n\r\nok",
		} {
			base := rawServer(t, reply, false)
			h := tc.handler(t)
			res, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/")})
			if err != nil {
				t.Fatalf("reply %q: %v", reply, err)
			}
			want := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)
			if string(body) != "ok" || res.Size != 2 || res.MediaType != "text/plain; charset=utf-8" || !res.ModTime.Equal(want) || res.Extra[fetch.ExtraETag] != `"v1"` {
				t.Errorf("reply %q: body %q, Size %d, MediaType %q, ModTime %v, ETag %q", reply, body, res.Size, res.MediaType, res.ModTime, res.Extra[fetch.ExtraETag])
			}
		}
	})
}
