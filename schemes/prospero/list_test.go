package prospero

import (
	"context"
	"errors"
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
		if got[i].Name != w.name || got[i].URL.String() != w.url || got[i].Kind != fetch.KindFile {
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
