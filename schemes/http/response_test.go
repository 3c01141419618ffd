package http

import (
	"strings"
	"testing"
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
