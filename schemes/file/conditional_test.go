package file

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// TestConditional checks Request.IfModifiedSince against the file's
// modification time, and that a media type from the name is marked as a
// guess.
func TestConditional(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "page.html")
	if err := os.WriteFile(p, []byte("<p>hi</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, mod, mod); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(fileURL(p))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		since time.Time
		kind  fetch.Kind
	}{
		{time.Time{}, 0},
		{mod.Add(-time.Second), 0},
		{mod, fetch.NotModified},
		{mod.Add(time.Hour), fetch.NotModified},
	} {
		res, err := (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: u, IfModifiedSince: tt.since})
		if tt.kind != 0 {
			if res != nil || !errors.Is(err, tt.kind) {
				t.Errorf("since %v: %v, %v; want kind %v", tt.since, res, err, tt.kind)
			}
			continue
		}
		if err != nil {
			t.Errorf("since %v: %v", tt.since, err)
			continue
		}
		res.Body.Close()
		if res.MediaType != "text/html; charset=utf-8" || !res.MediaTypeGuessed {
			t.Errorf("MediaType %q, guessed %v; want text/html; charset=utf-8 marked as a guess", res.MediaType, res.MediaTypeGuessed)
		}
	}
}
