package gopher

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

func TestList(t *testing.T) {
	s := newServer(t, map[string]respond{
		"/menu": send("iWelcome\t\tnull.host\t1\r\n" +
			"0About\t/about.txt\texample.org\t70\r\n" +
			"1Files\t/files\texample.org\t7070\r\n" +
			"7Find\t/find\texample.org\t70\r\n" +
			"8Chat\tguest\tbbs.example\t23\r\n" +
			"TMainframe\t\tibm.example\t23\r\n" +
			"hWeb\tURL:http://www.example.org/x?y=1\texample.org\t70\r\n" +
			"9Binary\t/b.bin\texample.org\t70\r\n" +
			"garbage without tabs\r\n" +
			"3Oops\t\terror.host\t1\r\n" +
			"0Broken port\t/x\texample.org\tseventy\r\n" +
			".\r\n"),
	})
	base := "gopher://" + s.addr + "/1/menu"
	u, _ := url.ParseLenient(base)
	l, err := (&Handler{}).List(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	type got struct {
		name, url string
		kind      fetch.ResourceKind
		mt        string
	}
	want := []got{
		{"About", "gopher://example.org/0/about.txt", fetch.ResourceFile, "text/plain"},
		{"Files", "gopher://example.org:7070/1/files", fetch.ResourceMenu, "application/gopher-menu"},
		{"Find", "gopher://example.org/7/find", fetch.ResourceList, "application/gopher-menu"},
		{"Chat", "telnet://guest@bbs.example/", fetch.ResourceSession, ""},
		{"Mainframe", "tn3270://ibm.example:23/", fetch.ResourceSession, ""},
		{"Web", "http://www.example.org/x?y=1", fetch.ResourceFile, "text/html"},
		{"Binary", "gopher://example.org/9/b.bin", fetch.ResourceFile, "application/octet-stream"},
	}
	var all []got
	for {
		e, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.Size != -1 {
			t.Errorf("%s: Size %d, want -1", e.Name, e.Size)
		}
		all = append(all, got{e.Name, e.URL.String(), e.Kind, e.MediaType})
	}
	if len(all) != len(want) {
		t.Fatalf("entries:\n%v\nwant:\n%v", all, want)
	}
	for i := range want {
		if all[i] != want[i] {
			t.Errorf("entry %d = %v, want %v", i, all[i], want[i])
		}
	}
	if l.Skipped() != 2 {
		t.Errorf("Skipped = %d, want 2", l.Skipped())
	}

	u, _ = url.ParseLenient("gopher://" + s.addr + "/0/about.txt")
	if _, err := (&Handler{}).List(context.Background(), &fetch.Request{URL: u}); !errors.Is(err, fetch.Unsupported) {
		t.Errorf("List of a text item: %v, want kind Unsupported", err)
	}
}

// TestListQueryAndFileName: the lister says which items ask for words
// their URL does not carry (searches and CSO books listed in a menu) and
// what an item whose selector is a path is called as a file, so that
// NewFS and the RoundTripper need no knowledge of gopher's item types.
func TestListQueryAndFileName(t *testing.T) {
	s := newServer(t, map[string]respond{
		"/menu": send("7Find\t/find\texample.org\t70\r\n" +
			"2Phone book\t\tcso.example\t105\r\n" +
			"0Release notes, 12 May\t/pub/notes.txt\texample.org\t70\r\n" +
			"1Back home\t/\texample.org\t70\r\n" +
			"0Selector, not a path\tnotes\texample.org\t70\r\n" +
			".\r\n"),
	})
	u, _ := url.ParseLenient("gopher://" + s.addr + "/1/menu")
	l, err := (&Handler{}).List(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	type got struct {
		query bool
		file  string
		kind  fetch.ResourceKind
	}
	want := []got{{true, "find", fetch.ResourceList}, {true, "", fetch.ResourceList}, {false, "notes.txt", fetch.ResourceFile}, {false, "", fetch.ResourceMenu}, {false, "", fetch.ResourceFile}}
	for i, w := range want {
		e, err := l.Next()
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if g := (got{e.NeedsQuery, e.FileName, e.Kind}); g != w {
			t.Errorf("%s: %+v, want %+v", e.Name, g, w)
		}
	}
}
