package http

import (
	"strings"
	"testing"

	"github.com/rfc1738/fetch/url"
)

func TestHostHeader(t *testing.T) {
	long := strings.Repeat("a", 70) + ".example"
	tests := []struct {
		host string
		port int
		want string
	}{
		{"example.org", 0, "example.org"},
		{"example.org", 8080, "example.org:8080"},
		{"127.0.0.1", 1, "127.0.0.1:1"},
		{"::1", 0, "[::1]"},
		{"::1", 65535, "[::1]:65535"},
		{long, 0, long},
		{long, 80, long + ":80"},
		{"fe80::" + long[:60], 443, "[fe80::" + long[:60] + "]:443"},
	}
	for _, tt := range tests {
		if got := hostHeader(&url.URL{Scheme: "http", Host: tt.host, Port: tt.port}); got != tt.want {
			t.Errorf("hostHeader(%q, %d) = %q, want %q", tt.host, tt.port, got, tt.want)
		}
	}
}

// TestFieldValue: fieldValue writes a value as net/http does, line breaks
// as spaces, white space trimmed at both ends.
func TestFieldValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"gzip", "gzip"},
		{" \t gzip \t ", "gzip"},
		{"a b\tc", "a b\tc"},
		{"a\r\nb", "a  b"},
		{"\r\n a \n", "a"},
		{"\ra\r", "a"},
		{" \t\r\n", ""},
	}
	for _, tt := range tests {
		if got := fieldValue(tt.in); got != tt.want {
			t.Errorf("fieldValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
