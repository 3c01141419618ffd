package http

import (
	"mime"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

var mediaTypes = []string{
	"", "text/html", "Text/HTML", "application/octet-stream", "image/svg+xml", "application/vnd.ms-excel",
	"text/plain; charset=UTF-8", "text/plain;charset=utf-8", " text/plain ", "text/", "/plain", "text",
	"text/plain/x", "a/b c", "text/\x01", "TEXT/plain",
}

// mediaType's shortcut gives what parsing and formatting give.
func TestMediaType(t *testing.T) {
	for _, ct := range mediaTypes {
		checkMediaType(t, ct)
	}
}

func FuzzMediaType(f *testing.F) {
	for _, ct := range mediaTypes {
		f.Add(ct)
	}
	f.Fuzz(checkMediaType)
}

func checkMediaType(t *testing.T, ct string) {
	want := ""
	if ct != "" {
		want = fetch.Sanitize(strings.TrimSpace(ct))
		if mt, params, err := mime.ParseMediaType(ct); err == nil {
			if f := mime.FormatMediaType(mt, params); f != "" {
				want = f
			}
		}
	}
	if got := mediaType(ct); got != want {
		t.Errorf("mediaType(%q) = %q, want %q", ct, got, want)
	}
}
