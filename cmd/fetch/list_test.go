package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

func testListing(t *testing.T, entries ...fetch.Entry) *fetch.Listing {
	i := 0
	return fetch.NewListing(func() (fetch.Entry, error) {
		if i == len(entries) {
			return fetch.Entry{}, io.EOF
		}
		i++
		if entries[i-1].Name == "bad" {
			return fetch.Entry{}, fetch.ErrUnparsed
		}
		return entries[i-1], nil
	}, nil)
}

// --list prints one URL a line; with --json one object per entry, the
// same keys for every entry, null where unknown.
func TestWriteListing(t *testing.T) {
	dir, _ := url.Parse("ftp://h.example/pub/")
	file, _ := url.Parse("ftp://h.example/pub/a.txt")
	mt := time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("x", 3600))
	entries := []fetch.Entry{
		{Name: "pub", URL: dir, Kind: fetch.ResourceDirectory, Size: -1},
		{Name: "bad"},
		{Name: "a.txt", URL: file, Kind: fetch.ResourceFile, Size: 12, ModTime: mt, MediaType: "text/plain"},
	}
	var b bytes.Buffer
	if err := writeListing(&b, testListing(t, entries...), false); err != nil {
		t.Fatal(err)
	}
	if want := "ftp://h.example/pub/\nftp://h.example/pub/a.txt\n"; b.String() != want {
		t.Errorf("--list:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	l := testListing(t, entries...)
	if err := writeListing(&b, l, true); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"pub","url":"ftp://h.example/pub/","kind":"directory","size":null,"modtime":null,"type":null}
{"name":"a.txt","url":"ftp://h.example/pub/a.txt","kind":"file","size":12,"modtime":"2024-05-06T06:08:09Z","type":"text/plain"}
`
	if b.String() != want {
		t.Errorf("--list --json:\n%s\nwant\n%s", b.String(), want)
	}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || len(m) != 6 {
			t.Errorf("%s: %v keys, %v", line, len(m), err)
		}
	}
	if l.Skipped() != 1 {
		t.Errorf("Skipped = %d, want 1", l.Skipped())
	}
	var we writeError
	if err := writeListing(fullWriter{}, testListing(t, entries...), false); !errors.As(err, &we) {
		t.Errorf("to a full stdout: %v, want a write error", err)
	}
}

// --list of a scheme that cannot list fails with Unsupported (exit 4).
func TestListUnsupported(t *testing.T) {
	_, errs, code := fetchCmd(t, "", "--list", "mailto:a@b.example")
	if code != 4 || !strings.Contains(errs, "list") {
		t.Errorf("exit %d, %q", code, errs)
	}
}

// --json shapes --list's output too.
func TestListJSONOption(t *testing.T) {
	if _, err := parseArgs([]string{"--list", "--json", "ftp://h.example/"}); err != nil {
		t.Errorf("--list --json: %v", err)
	}
}
