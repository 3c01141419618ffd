//go:build integration

package integration_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/ftp"
	"github.com/rfc1738/fetch/url"
)

// ftpList lists rawURL with the FTP handler's Lister and returns the
// entries by name, and how many lines could not be parsed.
func ftpList(t *testing.T, rawURL string) (map[string]fetch.Entry, int, string) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	h := &ftp.Handler{}
	defer h.Close()
	var trace strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := h.List(ctx, &fetch.Request{URL: u, Trace: fetch.NewTrace(&trace)})
	if err != nil {
		t.Fatalf("List(%s): %v", rawURL, err)
	}
	defer l.Close()
	out := map[string]fetch.Entry{}
	for {
		e, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("List(%s): %v\n%s", rawURL, err, trace.String())
		}
		out[e.Name] = e
	}
	return out, l.Skipped(), trace.String()
}

// checkEntry fails unless es holds name with that kind, URL and size.
func checkEntry(t *testing.T, es map[string]fetch.Entry, name string, kind fetch.ResourceKind, url string, size int64) {
	t.Helper()
	e, ok := es[name]
	switch {
	case !ok:
		t.Errorf("no entry %q in %v", name, es)
	case e.Kind != kind || e.URL.String() != url || e.Size != size || e.ModTime.IsZero():
		t.Errorf("entry %q: kind %v, URL %s, size %d, modified %v; want %v, %s, %d", name, e.Kind, e.URL, e.Size, e.ModTime, kind, url, size)
	}
}

// TestFTPListVsftpd: vsftpd offers no MLST: its LIST ("ls -l" with
// numeric owners) is parsed.
func TestFTPListVsftpd(t *testing.T) {
	base := ftpBase(t)
	es, skipped, trace := ftpList(t, base+"/pub/")
	if skipped != 0 || !strings.Contains(trace, "> LIST\n") {
		t.Errorf("%d lines skipped; trace:\n%s", skipped, trace)
	}
	checkEntry(t, es, "hello.txt", fetch.ResourceFile, base+"/pub/hello.txt", int64(len("hello from vsftpd\n")))
	checkEntry(t, es, "nested", fetch.ResourceDirectory, base+"/pub/nested/", -1)
	checkEntry(t, es, "with space", fetch.ResourceDirectory, base+"/pub/with%20space/", -1)
	// A directory entry's URL lists that directory.
	es, _, _ = ftpList(t, es["with space"].URL.String())
	checkEntry(t, es, "name with space.txt", fetch.ResourceFile, base+"/pub/with%20space/name%20with%20space.txt", int64(len("spaced out\n")))
}

// TestFTPListProftpd: proftpd offers MLST (MLSD is used), and on its
// second port it does not (its own LIST layout is parsed).
func TestFTPListProftpd(t *testing.T) {
	for _, tt := range []struct{ addr, cmd string }{
		{env(t, "FETCH_IT_PROFTPD_ADDR"), "MLSD"},
		{env(t, "FETCH_IT_PROFTPD_LIST_ADDR"), "LIST"},
	} {
		base := "ftp://" + tt.addr
		es, skipped, trace := ftpList(t, base+"/pub;type=d")
		if skipped != 0 || !strings.Contains(trace, "> "+tt.cmd+"\n") {
			t.Errorf("%s: %d lines skipped; trace:\n%s", tt.cmd, skipped, trace)
		}
		checkEntry(t, es, "data.bin", fetch.ResourceFile, base+"/pub/data.bin", 65536)
		checkEntry(t, es, "sub", fetch.ResourceDirectory, base+"/pub/sub/", -1)
		if _, ok := es["missing.txt"]; ok || len(es) != 3 {
			t.Errorf("%s: entries %v, want data.bin, sub, text.txt", tt.cmd, es)
		}
	}
}

// TestFTPMenu: --menu names directories with a final "/", so that
// following one lists it, on vsftpd (LIST) and proftpd (MLSD).
func TestFTPMenu(t *testing.T) {
	for _, base := range []string{ftpBase(t), proftpdBase(t)} {
		r := runFetch(t, "", nil, "--menu", base+"/pub/")
		wantCode(t, r, 0, "--menu of a directory")
		var dir string
		for _, l := range strings.Split(string(r.Stdout), "\n") {
			if strings.HasPrefix(l, "nested <") || strings.HasPrefix(l, "sub <") {
				dir = strings.TrimSuffix(l[strings.IndexByte(l, '<')+1:], ">")
			}
		}
		if !strings.HasSuffix(dir, "/") {
			t.Fatalf("%s: no directory URL ending in / in the menu:\n%s", base, r.Stdout)
		}
		r = runFetch(t, "", nil, "--menu", dir)
		wantCode(t, r, 0, "--menu of a directory the menu named")
		if !strings.Contains(string(r.Stdout), " <"+dir) {
			t.Errorf("%s: the listing of %s:\n%s", base, dir, r.Stdout)
		}
	}
}
