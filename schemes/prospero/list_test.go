package prospero

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

func TestList(t *testing.T) {
	replies := simReplies(t)
	s := newSimServer(t, replies)
	s.start()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := quick().List(ctx, &fetch.Request{URL: mustParse(t, simURL(s, "/srv/prospero/pub/docs"))})
	if err != nil {
		t.Fatal(err)
	}
	got, err := fetchtest.Entries(l)
	if err != nil {
		t.Fatal(err)
	}
	host := s.addr()
	want := []struct{ name, url string }{
		{"two.txt", "prospero://" + host + "//srv/prospero/pub/docs/two.txt"},
		{"one.txt", "prospero://" + host + "//srv/prospero/pub/docs/one.txt"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].URL.String() != w.url || got[i].Kind != fetch.ResourceFile {
			t.Errorf("entry %d: %+v, want %s %s", i, got[i], w.name, w.url)
		}
	}
	if _, err := quick().List(ctx, &fetch.Request{URL: mustParse(t, simURL(s, "/srv/prospero/README"))}); !errors.Is(err, fetch.Unsupported) {
		t.Errorf("List of a file: %v, want Kind Unsupported", err)
	}
}

// TestCloseAbortsRead checks that Close called while a Read waits on a
// stalled reply ends that Read promptly.
func TestCloseAbortsRead(t *testing.T) {
	s := newSimServer(t, simReplies(t))
	s.drop = func(seq uint16, _ int) bool { return seq == 5 }
	s.start()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := quick().Fetch(ctx, &fetch.Request{URL: mustParse(t, simURL(s, "/srv/prospero/pub/big.txt")), IdleTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fetchtest.CloseAbortsRead(t, res.Body)
}

// TestListDirectoryURLs: a directory's entry has a URL ending in "/"
// (CONTRACT §1, --list), which fetches the same directory.
func TestListDirectoryURLs(t *testing.T) {
	replies := simReplies(t)
	replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero/pub 0"] = replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero 0"]
	replies["DIRECTORY ASCII /srv/prospero/pub\nLIST '' COMPONENTS"] = []byte(
		"LINK  L FILE big.txt INTERNET-D LOCALHOST(21525) ASCII '/srv/prospero/pub/big.txt' 0\n" +
			"LINK  L FILE huge.txt INTERNET-D LOCALHOST(21525) ASCII '/srv/prospero/pub/huge.txt' 0\n" +
			"LINK  L DIRECTORY docs INTERNET-D LOCALHOST(21525) ASCII '/srv/prospero/pub/docs' 0\n")
	s := newSimServer(t, replies)
	s.start()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := quick().List(ctx, &fetch.Request{URL: mustParse(t, simURL(s, "/srv/prospero"))})
	if err != nil {
		t.Fatal(err)
	}
	got, err := fetchtest.Entries(l)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Name != "pub" || got[1].Kind != fetch.ResourceDirectory {
		t.Fatalf("entries %+v, want README and the directory pub", got)
	}
	if u := got[1].URL.String(); u != "prospero://"+s.addr()+"//srv/prospero/pub/" {
		t.Errorf("directory URL %s, want one ending in /", u)
	}
	if u := got[0].URL.String(); u != "prospero://"+s.addr()+"//srv/prospero/README" {
		t.Errorf("file URL %s", u)
	}
	l, err = quick().List(ctx, &fetch.Request{URL: got[1].URL})
	if err != nil {
		t.Fatalf("List(%s): %v", got[1].URL, err)
	}
	if sub, err := fetchtest.Entries(l); err != nil || len(sub) != 3 {
		t.Errorf("List(%s) = %+v, %v; want the three links of pub", got[1].URL, sub, err)
	}
}

// TestWriteMenu: --menu renders a directory one link a line with its
// name, control characters escaped, and its URL.
func TestWriteMenu(t *testing.T) {
	replies := simReplies(t)
	replies["DIRECTORY ASCII /srv/odd\nLIST '' COMPONENTS"] = []byte(
		"LINK  L FILE 'it''s here.txt' INTERNET-D LOCALHOST(21525) ASCII '/srv/odd/it''s here.txt' 0\n" +
			"LINK  L DIRECTORY 'esc\x1b[2J' INTERNET-D LOCALHOST(21525) ASCII '/srv/odd/sub' 0\n")
	replies["GET-OBJECT-INFO #ALL ASCII /srv/odd 0"] = replies["GET-OBJECT-INFO #ALL ASCII /srv/prospero 0"]
	s := newSimServer(t, replies)
	s.start()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	host := s.addr()
	want := "it's here.txt <prospero://" + host + "//srv/odd/it's%20here.txt>\n" +
		`esc\x1b[2J <prospero://` + host + "//srv/odd/sub/>\n"
	// From the handler, and through a Client's Body wrapper.
	c := &fetch.Client{}
	c.Register("prospero", quick())
	for _, fetchIt := range []func(context.Context, *fetch.Request) (*fetch.Resource, error){quick().Fetch, c.Do} {
		res, err := fetchIt(ctx, &fetch.Request{URL: mustParse(t, simURL(s, "/srv/odd"))})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		err = WriteMenu(&b, res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("WriteMenu:\n%s\nwant\n%s", b.String(), want)
		}
	}
}
