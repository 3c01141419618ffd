package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/url"
)

func treeFS(t *testing.T, tr *tree, root string) fs.FS {
	t.Helper()
	c := new(fetch.Client)
	c.Register("ftp", tr)
	fsys, err := fetch.NewFS(context.Background(), c, root)
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestFSConformance runs testing/fstest over a listed tree: a file, a
// subdirectory, a name io/fs cannot hold as is (escaped), a name repeated
// (numbered), an information line and an unparsed line (both left out),
// and directory entries that lead back up (left out: no cycles).
func TestFSConformance(t *testing.T) {
	tr := newTree()
	fsys := treeFS(t, tr, "ftp://h/pub/")
	if err := fstest.TestFS(fsys, "a.txt", "a.txt (2)", "about%2Fhelp", "sub/b.txt", `x<y>&"z.txt`); err != nil {
		t.Fatal(err)
	}
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != `a.txt,a.txt (2),about%2Fhelp,sub,x<y>&"z.txt` {
		t.Errorf("root entries %s", got)
	}
	b, err := fs.ReadFile(fsys, "sub/b.txt")
	if err != nil || string(b) != "beta\n" {
		t.Errorf("ReadFile(sub/b.txt) = %q, %v", b, err)
	}
	info, err := fs.Stat(fsys, "a.txt")
	if err != nil || info.Size() != 6 || !info.ModTime().Equal(tr.mod) || info.IsDir() {
		t.Errorf("Stat(a.txt) = %v, %v", info, err)
	}
	if e, ok := info.Sys().(fetch.Entry); !ok || e.URL.String() != "ftp://h/pub/a.txt" {
		t.Errorf("Sys() = %#v, want the listing's Entry", info.Sys())
	}
}

func TestFSErrors(t *testing.T) {
	fsys := treeFS(t, newTree(), "ftp://h/pub/")
	for _, name := range []string{"missing", "sub/missing", "a.txt/x"} {
		if _, err := fsys.Open(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) = %v, want fs.ErrNotExist", name, err)
		}
	}
	for _, name := range []string{"/a.txt", "../a.txt", "sub/", ""} {
		if _, err := fsys.Open(name); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Open(%q) = %v, want fs.ErrInvalid", name, err)
		}
	}
	// A root that is not a directory fails at once.
	c := new(fetch.Client)
	c.Register("ftp", newTree())
	if _, err := fetch.NewFS(context.Background(), c, "ftp://h/nowhere/"); !errors.Is(err, fetch.NotFound) {
		t.Errorf("NewFS of a missing directory: %v", err)
	}
	// Files are fetched when read, not when opened, and a file's fetch
	// failure is the read's error.
	tr := newTree()
	fsys = treeFS(t, tr, "ftp://h/pub/")
	n := len(tr.seen)
	f, err := fsys.Open("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Stat(); err != nil || len(tr.seen) != n {
		t.Errorf("Open+Stat fetched the file (%d fetches) or failed: %v", len(tr.seen)-n, err)
	}
	delete(tr.files, "/pub/a.txt")
	if _, err := io.ReadAll(f); !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, fetch.NotFound) {
		t.Errorf("reading a file gone since its listing: %v, want fs.ErrNotExist and fetch.NotFound", err)
	}
	f.Close()
}

// TestFSFile walks a file: tree through the file scheme's handler.
func TestFSFile(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a.txt":          "alpha\n",
		"sub/b.bin":      "\x00\x01\x02",
		"sub/deep/c.txt": "gamma\n",
		"with space.txt": "spaced\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := new(fetch.Client)
	schemes.Register(c)
	root := "file://" + filepath.ToSlash(dir) + "/"
	if !strings.HasPrefix(root, "file:///") {
		root = "file:///" + strings.TrimPrefix(root, "file://")
	}
	fsys, err := fetch.NewFS(context.Background(), c, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(fsys, "a.txt", "sub/b.bin", "sub/deep/c.txt", "with space.txt"); err != nil {
		t.Fatal(err)
	}
	var walked []string
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		walked = append(walked, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := ". a.txt sub sub/b.bin sub/deep sub/deep/c.txt with space.txt"
	if got := strings.Join(walked, " "); got != want {
		t.Errorf("WalkDir visited %q, want %q", got, want)
	}
}

// Walking an FTP server's tree with io/fs.
func ExampleNewFS() {
	c := new(fetch.Client)
	schemes.Register(c)
	fsys, err := fetch.NewFS(context.Background(), c, "ftp://ftp.example/pub/")
	if err != nil {
		log.Fatal(err)
	}
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fmt.Println(p)
		return nil
	})
}

// menus is a gopher Lister of menus by URL, each a list of item URLs.
type menus map[string][]string

func (m menus) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	return &fetch.Resource{URL: req.URL, Size: 1, Body: io.NopCloser(strings.NewReader("x"))}, nil
}

func (m menus) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	items, ok := m[req.URL.String()]
	if !ok {
		return nil, fetch.Reply(fetch.NotFound, 0, "no such menu")
	}
	i := 0
	return fetch.NewListing(func() (fetch.Entry, error) {
		if i == len(items) {
			return fetch.Entry{}, io.EOF
		}
		i++
		u, err := url.Parse(items[i-1])
		if err != nil {
			return fetch.Entry{}, err
		}
		kind := fetch.ResourceFile
		if u.Gopher().Type == "1" {
			kind = fetch.ResourceMenu
		}
		// As gopher's Lister names an item whose selector is a path.
		return fetch.Entry{Name: items[i-1], URL: u, Kind: kind, Size: -1, FileName: path.Base(u.Gopher().Selector)}, nil
	}, nil), nil
}

// An FS over a gopher hole stays on its root's host and scheme: a menu's
// items on other hosts are not entries (issue 25: NewFS walked into menus
// on other hosts).
func TestFSStaysOnHost(t *testing.T) {
	m := menus{
		"gopher://hole.example/1/":      {"gopher://hole.example/0/a", "gopher://hole.example/1/sub", "gopher://other.example/1/away", "gopher://other.example/0/f", "gopher://hole.example:7070/1/port"},
		"gopher://hole.example/1/sub":   {"gopher://hole.example/0/b"},
		"gopher://other.example/1/away": {"gopher://other.example/0/far"},
	}
	c := new(fetch.Client)
	c.Register("gopher", m)
	fsys, err := fetch.NewFS(context.Background(), c, "gopher://hole.example/1/")
	if err != nil {
		t.Fatal(err)
	}
	var walked []string
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		walked = append(walked, p)
		return nil
	})
	if want := ". a sub sub/b"; err != nil || strings.Join(walked, " ") != want {
		t.Errorf("WalkDir = %q, %v; want %q", walked, err, want)
	}
}

// entries is a Lister whose one listing is the entries given.
type entries []fetch.Entry

func (es entries) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	return &fetch.Resource{URL: req.URL, Size: 1, Body: io.NopCloser(strings.NewReader("x"))}, nil
}

func (es entries) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	i := 0
	return fetch.NewListing(func() (fetch.Entry, error) {
		if i == len(es) {
			return fetch.Entry{}, io.EOF
		}
		i++
		return es[i-1], nil
	}, nil), nil
}

// NewFS knows no scheme's item types: whatever the scheme, an entry that
// needs a query is left out, and one with a FileName is called by it.
func TestFSEntryFields(t *testing.T) {
	u := func(s string) *url.URL { v, _ := url.Parse(s); return v }
	c := new(fetch.Client)
	c.Register("wais", entries{
		{Name: "Find", URL: u("wais://h.example/db?"), Kind: fetch.ResourceList, NeedsQuery: true},
		{Name: "Release notes, 12 May", URL: u("wais://h.example/db/TEXT/notes-0001"), Kind: fetch.ResourceFile, FileName: "notes.txt"},
		{Name: "plain", URL: u("wais://h.example/db/TEXT/plain"), Kind: fetch.ResourceFile},
	})
	fsys, err := fetch.NewFS(context.Background(), c, "wais://h.example/db")
	if err != nil {
		t.Fatal(err)
	}
	des, err := fs.ReadDir(fsys, ".")
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	if want := "notes.txt plain"; err != nil || strings.Join(names, " ") != want {
		t.Errorf("ReadDir = %q, %v; want %q", names, err, want)
	}
}
