package ftp

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// linkServer serves a tree with symbolic links of every kind: to a
// directory below, to a file, to the directory itself and its parent
// (cycles), aside to another tree, and to nothing.
func linkServer(t *testing.T) *fakeServer {
	s := newFakeServer(t)
	s.files["/pub/f.txt"] = []byte("hello")
	s.files["/pub/real/a.txt"] = []byte("abc")
	s.files["/other/x.txt"] = []byte("x")
	s.links = map[string]string{
		"/pub/dirlink":  "/pub/real",
		"/pub/filelink": "f.txt",
		"/pub/loop":     ".",
		"/pub/up":       "..",
		"/pub/aside":    "/other",
		"/pub/dangling": "nosuch",
		"/other/back":   "/pub",
	}
	return s.start()
}

// TestListLinks: LIST's "l" entries are listed as what they lead to, a
// directory (CWD enters it) or a file (SIZE gives its size), after the
// others; a link that leads up or aside is named by its directory's own
// URL, so that following it never goes round a cycle (issue 28).
func TestListLinks(t *testing.T) {
	s := linkServer(t)
	h := &Handler{}
	defer h.Close()
	var trace strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := req(t, "ftp://"+s.addr()+"/pub/")
	r.Trace = fetch.NewTrace(&trace)
	l, err := h.List(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	var es []fetch.Entry
	for {
		e, err := l.Next()
		if err != nil {
			if err != io.EOF {
				t.Fatalf("%v\n%s", err, trace.String())
			}
			break
		}
		es = append(es, e)
	}
	l.Close()
	got := brief(es)
	for i := range got {
		got[i] = strings.Replace(got[i], s.addr(), "H", 1)
	}
	want := []string{
		"file ftp://H/pub/f.txt 5",
		"directory ftp://H/pub/real/ -1",
		"directory ftp://H/other/ -1",  // aside
		"file ftp://H/pub/dangling -1", // to nothing
		"directory ftp://H/pub/dirlink/ -1",
		"file ftp://H/pub/filelink 5",
		"directory ftp://H/pub/ -1", // loop: the directory itself
		"directory ftp://H/ -1",     // up: its parent
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries\n%q\nwant\n%q\n%s", got, want, trace.String())
	}
	if n := s.loginCount(); n != 1 {
		t.Errorf("%d logins, want 1 (the links are resolved on the listing's connection)", n)
	}
}

// TestFSLinks: fs.WalkDir over NewFS follows links to directories and
// files and ends, whatever cycles the links make.
func TestFSLinks(t *testing.T) {
	s := linkServer(t)
	h := &Handler{}
	defer h.Close()
	c := &fetch.Client{}
	c.Register("ftp", h)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	fsys, err := fetch.NewFS(ctx, c, "ftp://"+s.addr()+"/pub/")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if len(paths) > 100 {
			t.Fatalf("a cycle: %q", paths)
		}
		if !d.IsDir() {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A dangling link stays a file (of unknown size): the server lists
	// it; aside/back leads back to the root, loop and up lead up.
	want := []string{"aside/x.txt", "dangling", "dirlink/a.txt", "f.txt", "filelink", "real/a.txt"}
	if !slices.Equal(paths, want) {
		t.Errorf("files %q, want %q", paths, want)
	}
	if b, err := fs.ReadFile(fsys, "filelink"); err != nil || string(b) != "hello" {
		t.Errorf("ReadFile(filelink) = %q, %v", b, err)
	}
	if b, err := fs.ReadFile(fsys, "dirlink/a.txt"); err != nil || string(b) != "abc" {
		t.Errorf("ReadFile(dirlink/a.txt) = %q, %v", b, err)
	}
}

// TestRoundTripperLinks: the RoundTripper's page of a directory links a
// symbolic link to a directory as a directory (its URL ends in "/").
func TestRoundTripperLinks(t *testing.T) {
	s := linkServer(t)
	h := &Handler{}
	defer h.Close()
	c := &fetch.Client{}
	c.Register("ftp", h)
	hc := &http.Client{Transport: fetch.NewRoundTripper(c)}
	resp, err := hc.Get("ftp://" + s.addr() + "/pub/")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<a href="ftp://` + s.addr() + `/pub/dirlink/">dirlink</a>`,
		`<a href="ftp://` + s.addr() + `/pub/filelink">filelink</a>`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("page lacks %s:\n%s", want, b)
		}
	}
}
