package file

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

func fileURL(p string) string { return "file://" + filepath.ToSlash(p) }

func TestConformance(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	if err := os.WriteFile(filepath.Join(dir, "big"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	fetchtest.Run(t, &Handler{}, fetchtest.Cases{
		Existing: fileURL(filepath.Join(dir, "big")),
		Want:     data,
		Missing:  fileURL(filepath.Join(dir, "missing")),
	})
}

func TestFetch(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a b.txt"), []byte("hello\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "z"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "a"), nil, 0o644)
	locked := filepath.Join(dir, "locked")
	os.WriteFile(locked, []byte("x"), 0o000)

	tests := []struct {
		url      string
		want     string
		kind     fetch.ResourceKind
		errKind  fetch.Kind
		rootSkip bool
	}{
		{url: "file://" + dir + "/a%20b.txt", want: "hello\n", kind: fetch.ResourceFile},
		{url: "file://localhost" + dir + "/a%20b.txt", want: "hello\n", kind: fetch.ResourceFile},
		{url: "file://LOCALHOST" + dir + "/a%20b.txt", want: "hello\n", kind: fetch.ResourceFile},
		{url: "file://" + dir + "/sub", want: "a\nz\n", kind: fetch.ResourceDirectory},
		{url: "file://" + dir + "/sub/", want: "a\nz\n", kind: fetch.ResourceDirectory},
		{url: "file://" + dir + "/nope", errKind: fetch.NotFound},
		{url: "file://" + dir + "/locked", errKind: fetch.Auth, rootSkip: true},
		{url: "file://example.com" + dir + "/a%20b.txt", errKind: fetch.Unsupported},
		{url: "file://" + dir + "/a%2Fb", errKind: fetch.Malformed},
	}
	for _, tt := range tests {
		if tt.rootSkip && os.Geteuid() == 0 {
			continue // root reads any file
		}
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.url, err)
		}
		res, err := (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: u})
		if tt.errKind != 0 {
			if !errors.Is(err, tt.errKind) {
				t.Errorf("Fetch(%s) error = %v, want kind %v", tt.url, err, tt.errKind)
			}
			continue
		}
		if err != nil {
			t.Errorf("Fetch(%s): %v", tt.url, err)
			continue
		}
		got, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(got) != tt.want || res.Kind != tt.kind {
			t.Errorf("Fetch(%s) = %q, %v, kind %v; want %q, kind %v", tt.url, got, err, res.Kind, tt.want, tt.kind)
		}
	}
}

func TestResumeAndHead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	u, _ := url.Parse(fileURL(p))

	res, err := (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: u, Offset: 4})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(got) != "456789" || res.Offset != 4 || res.Size != 6 {
		t.Errorf("resume at 4 = %q offset %d size %d, want \"456789\" 4 6", got, res.Offset, res.Size)
	}

	res, err = (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: u, Head: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Size != 10 || res.MediaType != "text/plain; charset=utf-8" || res.ModTime.IsZero() || res.Body != fetch.NoBody {
		t.Errorf("head = size %d type %q mtime %v, want 10 text/plain; charset=utf-8 and a time", res.Size, res.MediaType, res.ModTime)
	}
}

// A file appended to while it is read is delivered at its size when opened.
func TestGrowingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	os.WriteFile(p, []byte("first\n"), 0o644)
	u, _ := url.Parse(fileURL(p))
	res, err := (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("second\n")
	f.Close()
	var sb strings.Builder
	if _, err := io.Copy(&sb, res.Body); err != nil || sb.String() != "first\n" {
		t.Errorf("read %q, %v; want %q", sb.String(), err, "first\n")
	}
}

func TestPlan(t *testing.T) {
	u, _ := url.Parse("file:///etc/motd")
	lines, err := (&Handler{}).Plan(&fetch.Request{URL: u})
	if err != nil || len(lines) != 1 || lines[0] != "open /etc/motd" {
		t.Errorf("Plan = %q, %v", lines, err)
	}
}
