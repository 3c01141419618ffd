package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes"
	"github.com/rfc1738/fetch/url"
)

// tree is a handler over an in-memory tree for the RoundTripper and FS
// tests: paths ending in "/" are directories listed by List, the others
// files; "err:KIND" paths fail with that Kind.
type tree struct {
	files map[string]string    // path → contents
	dirs  map[string][]treeEnt // path → entries
	mod   time.Time
	seen  []*fetch.Request
}

type treeEnt struct {
	name, path string
	kind       fetch.ResourceKind
	size       int64
}

func (tr *tree) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	tr.seen = append(tr.seen, req)
	p, err := neturl.PathUnescape("/" + req.URL.Path)
	if err != nil {
		return nil, fetch.Errorf(fetch.Malformed, "%v", err)
	}
	if k, ok := strings.CutPrefix(p, "/err:"); ok {
		n, _ := strconv.Atoi(k)
		kind := fetch.Kind(n)
		if kind == fetch.NotFound {
			return nil, fetch.Reply(kind, 550, "no such file")
		}
		return nil, fetch.Errorf(kind, "failed as asked")
	}
	if ents, ok := tr.dirs[p]; ok {
		var b strings.Builder
		for _, e := range ents {
			b.WriteString(e.name + "\n")
		}
		return &fetch.Resource{Kind: fetch.ResourceDirectory, Size: -1, ModTime: tr.mod, Body: io.NopCloser(strings.NewReader(b.String()))}, nil
	}
	body, ok := tr.files[p]
	if !ok {
		return nil, fetch.Errorf(fetch.NotFound, "no %s", p)
	}
	if !req.IfModifiedSince.IsZero() && !tr.mod.After(req.IfModifiedSince) {
		return nil, fetch.Errorf(fetch.NotModified, "unchanged")
	}
	res := &fetch.Resource{Kind: fetch.ResourceFile, Size: int64(len(body)), ModTime: tr.mod, MediaType: "text/plain", Header: http.Header{"X-Attr": {"v"}}}
	if req.Offset > 0 {
		body = body[req.Offset:]
		res.Offset, res.Size = req.Offset, int64(len(body))
	}
	if req.Head {
		res.Body = fetch.NoBody
	} else {
		res.Body = io.NopCloser(strings.NewReader(body))
	}
	return res, nil
}

func (tr *tree) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	p := "/" + req.URL.Path
	ents, ok := tr.dirs[p]
	if !ok {
		return nil, fetch.Errorf(fetch.NotFound, "no directory %s", p)
	}
	i := 0
	return fetch.NewListing(func() (fetch.Entry, error) {
		if i >= len(ents) {
			return fetch.Entry{}, io.EOF
		}
		e := ents[i]
		i++
		if e.path == "unparsed" {
			return fetch.Entry{}, fmt.Errorf("line %q: %w", e.name, fetch.ErrUnparsed)
		}
		var u *url.URL
		if e.path != "" {
			v := *req.URL
			v.Path = strings.TrimPrefix(e.path, "/")
			u = &v
		}
		return fetch.Entry{Name: e.name, URL: u, Kind: e.kind, Size: e.size, ModTime: tr.mod}, nil
	}, nil), nil
}

func newTree() *tree {
	return &tree{
		mod: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
		files: map[string]string{
			"/pub/a.txt":        "alpha\n",
			"/pub/sub/b.txt":    "beta\n",
			"/pub/~joe/c.txt":   "gamma\n",
			"/pub/x<y>&\"z.txt": "odd\n",
		},
		dirs: map[string][]treeEnt{
			"/pub/": {
				{"a.txt", "/pub/a.txt", fetch.ResourceFile, 6},
				{"sub", "/pub/sub/", fetch.ResourceDirectory, -1},
				{"an information line", "", fetch.ResourceFile, -1},
				{"garbage", "unparsed", 0, 0},
				{`x<y>&"z.txt`, `/pub/x<y>&"z.txt`, fetch.ResourceFile, 4},
				{"about/help", "/pub/a.txt", fetch.ResourceFile, 6},
				{"a session", "/pub/telnet", fetch.ResourceSession, -1},
				{"a.txt", "/pub/sub/b.txt", fetch.ResourceFile, 5},
			},
			"/pub/sub/": {
				{"b.txt", "/pub/sub/b.txt", fetch.ResourceFile, 5},
				{"back to pub", "/pub/", fetch.ResourceDirectory, -1}, // cycles, left out by NewFS
				{"itself", "/pub/sub/", fetch.ResourceDirectory, -1},
				{"..", "/", fetch.ResourceDirectory, -1},
			},
		},
	}
}

func treeClient(tr *tree) *http.Client {
	c := new(fetch.Client)
	c.Register("ftp", tr)
	t := &http.Transport{}
	t.RegisterProtocol("ftp", fetch.NewRoundTripper(c))
	return &http.Client{Transport: t}
}

func TestRoundTripperFile(t *testing.T) {
	tr := newTree()
	hc := treeClient(tr)
	resp, err := hc.Get("ftp://h/pub/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "alpha\n" {
		t.Fatalf("GET = %d %q", resp.StatusCode, body)
	}
	want := map[string]string{
		"Content-Length": "6",
		"Content-Type":   "text/plain",
		"Last-Modified":  "Mon, 06 May 2024 07:08:09 GMT",
		"X-Attr":         "v",
	}
	for k, v := range want {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if resp.ContentLength != 6 {
		t.Errorf("ContentLength %d", resp.ContentLength)
	}

	// HEAD: the metadata, no body.
	resp, err = hc.Head("ftp://h/pub/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Length") != "6" || !tr.seen[len(tr.seen)-1].Head {
		t.Errorf("HEAD = %d %v", resp.StatusCode, resp.Header)
	}

	// If-Modified-Since and Range reach the request.
	req, _ := http.NewRequest("GET", "ftp://h/pub/a.txt", nil)
	req.Header.Set("If-Modified-Since", tr.mod.Format(http.TimeFormat))
	resp, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-Modified-Since: status %d, want 304", resp.StatusCode)
	}
	req, _ = http.NewRequest("GET", "ftp://h/pub/a.txt", nil)
	req.Header.Set("Range", "bytes=2-")
	resp, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent || string(body) != "pha\n" || resp.Header.Get("Content-Range") != "bytes 2-5/6" {
		t.Errorf("Range: %d %q %q", resp.StatusCode, body, resp.Header.Get("Content-Range"))
	}

	// Other methods are refused.
	resp, err = hc.Post("ftp://h/pub/a.txt", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}

// TestRoundTripperLenient: net/url leaves "~" unencoded, which RFC 1738's
// BNF forbids; the RoundTripper accepts it.
func TestRoundTripperLenient(t *testing.T) {
	hc := treeClient(newTree())
	resp, err := hc.Get("ftp://h/pub/~joe/c.txt")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "gamma\n" {
		t.Errorf("GET ~joe = %d %q", resp.StatusCode, body)
	}
}

func TestRoundTripperErrors(t *testing.T) {
	hc := treeClient(newTree())
	for _, tc := range []struct {
		kind fetch.Kind
		code int
	}{
		{fetch.NotFound, 404},
		{fetch.Auth, 401},
		{fetch.Refused, 403},
		{fetch.Unsupported, 501},
		{fetch.Timeout, 504},
		{fetch.Connect, 502},
		{fetch.Protocol, 502},
		{fetch.Incomplete, 502},
		{fetch.Unavailable, 503},
		{fetch.Usage, 400},
		{fetch.Other, 500},
	} {
		resp, err := hc.Get(fmt.Sprintf("ftp://h/err:%d", int(tc.kind)))
		if err != nil {
			t.Fatalf("%v: %v", tc.kind, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.Contains(string(body), "ftp://h/err:") {
			t.Errorf("%v: %d %q, want %d naming the URL", tc.kind, resp.StatusCode, body, tc.code)
		}
		if tc.kind == fetch.NotFound && resp.Header.Get("Fetch-Reply") != "550 no such file" {
			t.Errorf("NotFound: Fetch-Reply %q", resp.Header.Get("Fetch-Reply"))
		}
	}
	// A canceled request is an error, as with net/http's own transports.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("ftp://h/err:%d", int(fetch.Canceled)), nil)
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("a canceled request returned %d", resp.StatusCode)
	} else if !errors.Is(err, context.Canceled) && !errors.Is(err, fetch.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

func TestRoundTripperListing(t *testing.T) {
	hc := treeClient(newTree())
	resp, err := hc.Get("ftp://h/pub/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("listing: %d %v", resp.StatusCode, resp.Header)
	}
	for _, want := range []string{
		`<a href="ftp://h/pub/a.txt">a.txt</a>`,
		`<a href="ftp://h/pub/sub/">sub</a>`,
		`<li>an information line</li>`,
		`<li>a session</li>`,
		`<a href="ftp://h/pub/x&lt;y&gt;&amp;&#34;z.txt">x&lt;y&gt;&amp;&#34;z.txt</a>`,
		`1 entries could not be parsed`,
		`</html>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("listing lacks %s:\n%s", want, page)
		}
	}
	if n := strings.Count(page, "<a href"); n != 5 {
		t.Errorf("%d links, want 5:\n%s", n, page)
	}
}

// An http.Client that fetches gopher and FTP URLs too.
func ExampleNewRoundTripper() {
	c := new(fetch.Client)
	schemes.Register(c)
	t := http.DefaultTransport.(*http.Transport).Clone()
	rt := fetch.NewRoundTripper(c)
	for _, s := range []string{"gopher", "ftp", "news", "nntp", "wais", "prospero", "file"} {
		t.RegisterProtocol(s, rt)
	}
	hc := &http.Client{Transport: t}

	resp, err := hc.Get("gopher://gopher.floodgap.com/1/")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("Content-Type")) // a menu is an HTML page of links
}

// An entry whose URL lacks the words it asks for (NeedsQuery) is listed
// as text, not a link: fetching it by the URL alone would not do.
func TestRoundTripperNeedsQuery(t *testing.T) {
	u := func(s string) *url.URL { v, _ := url.Parse(s); return v }
	c := new(fetch.Client)
	c.Register("gopher", menuOf{entries{
		{Name: "Find", URL: u("gopher://h.example/7/find"), Kind: fetch.ResourceList, NeedsQuery: true},
		{Name: "Found", URL: u("gopher://h.example/7/find%09words"), Kind: fetch.ResourceList},
	}})
	tr := &http.Transport{}
	tr.RegisterProtocol("gopher", fetch.NewRoundTripper(c))
	resp, err := (&http.Client{Transport: tr}).Get("gopher://h.example/1/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	if !strings.Contains(page, "<li>Find</li>") || !strings.Contains(page, `">Found</a>`) || strings.Count(page, "<a href") != 1 {
		t.Errorf("listing:\n%s", page)
	}
}

// menuOf is entries whose Fetch returns a menu, so the RoundTripper lists it.
type menuOf struct{ entries }

func (m menuOf) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	return &fetch.Resource{URL: req.URL, Kind: fetch.ResourceMenu, Size: -1, Body: fetch.NoBody}, nil
}
