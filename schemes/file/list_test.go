package file

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

func TestList(t *testing.T) {
	dir := t.TempDir()
	mod := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	os.WriteFile(filepath.Join(dir, "a b.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "100%.html"), []byte("<p>"), 0o644)
	os.Chtimes(filepath.Join(dir, "a b.txt"), mod, mod)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	for i := 0; i < 600; i++ { // more than one batch
		os.WriteFile(filepath.Join(dir, "sub", "f"+string(rune('a'+i%26))+time.Duration(i).String()), nil, 0o644)
	}
	u, err := url.Parse(fileURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	l, err := (&Handler{}).List(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	var es []fetch.Entry
	for {
		e, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	l.Close()
	sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	if len(es) != 3 {
		t.Fatalf("entries %v, want 3", es)
	}
	base := fileURL(dir) + "/"
	want := []struct {
		name, url string
		kind      fetch.ResourceKind
		size      int64
		mt        string
	}{
		{"100%.html", base + "100%25.html", fetch.ResourceFile, 3, "text/html; charset=utf-8"},
		{"a b.txt", base + "a%20b.txt", fetch.ResourceFile, 6, "text/plain; charset=utf-8"},
		{"sub", base + "sub/", fetch.ResourceDirectory, -1, ""},
	}
	for i, w := range want {
		e := es[i]
		if e.Name != w.name || e.URL.String() != w.url || e.Kind != w.kind || e.Size != w.size || e.MediaType != w.mt || e.ModTime.IsZero() {
			t.Errorf("entry %d = %+v (URL %s), want %+v", i, e, e.URL, w)
		}
	}
	if !es[1].ModTime.Equal(mod) {
		t.Errorf("ModTime %v, want %v", es[1].ModTime, mod)
	}
	// The entries' URLs fetch what they name.
	res, err := (&Handler{}).Fetch(context.Background(), &fetch.Request{URL: es[1].URL})
	if err != nil {
		t.Fatalf("fetch %s: %v", es[1].URL, err)
	}
	res.Body.Close()

	// A directory of many entries streams them all.
	if u, err = url.Parse(fileURL(filepath.Join(dir, "sub")) + "/"); err != nil {
		t.Fatal(err)
	}
	l, err = (&Handler{}).List(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, err := l.Next(); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		n++
	}
	l.Close()
	if n != 600 {
		t.Errorf("listed %d entries of sub, want 600", n)
	}

	if _, err := (&Handler{}).List(context.Background(), &fetch.Request{URL: es[1].URL}); !errors.Is(err, fetch.Unsupported) {
		t.Errorf("List of a file: %v, want kind Unsupported", err)
	}
}
