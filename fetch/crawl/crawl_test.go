package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/fetch/warc"
	"github.com/rfc1738/fetch/url"
)

func TestMain(m *testing.M) { fetchtest.Main(m) }

// site is an in-memory server for one or more schemes: each URL is a file
// (its body) or a listing (its links). A listing's body is an HTML page of
// <a> elements for http, else its links one a line, which ListBody reads
// (as the gopher handler reads a menu); with listerOnly, the site has no
// ListBody but for http, and its listings are read through List only (as
// FTP's).
type site struct {
	mu         sync.Mutex
	pages      map[string]page
	fetched    []string
	times      map[string][]time.Time
	listerOnly bool
	dial       bool // each request dials its URL's host first, through the request
}

type page struct {
	body   string
	links  []string
	status int   // an HTTP status for robots.txt; 0 is 200
	err    error // the fetch fails with it
	media  string
}

func (s *site) lookup(u *url.URL) (page, bool) {
	p, ok := s.pages[u.String()]
	return p, ok
}

// request records a request, and dials as a real handler would when
// dial is set, so that the Client's dial-time policy judges the address.
func (s *site) request(ctx context.Context, req *fetch.Request) (page, bool, error) {
	u := req.URL
	s.mu.Lock()
	s.fetched = append(s.fetched, u.String())
	if s.times == nil {
		s.times = map[string][]time.Time{}
	}
	s.times[u.Host] = append(s.times[u.Host], time.Now())
	p, ok := s.lookup(u)
	dial := s.dial
	s.mu.Unlock()
	if dial {
		c, err := req.DialContext(ctx, "tcp", u.HostPort())
		if err != nil {
			return p, ok, err
		}
		c.Close()
	}
	return p, ok, nil
}

func (s *site) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	p, ok, err := s.request(ctx, req)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fetch.Reply(fetch.NotFound, 404, "not found")
	}
	if p.err != nil {
		return nil, p.err
	}
	body := p.body
	res := &fetch.Resource{URL: req.URL, Status: p.status, MediaType: p.media}
	if p.links != nil {
		res.Kind = fetch.ResourceMenu
		body = strings.Join(p.links, "\n") + "\n"
		if req.URL.Scheme == "http" {
			res.Kind, res.MediaType = fetch.ResourceFile, "text/html"
			var b strings.Builder
			for _, l := range p.links {
				fmt.Fprintf(&b, "<a href=%q>x</a>\n", l)
			}
			body = b.String()
		}
	}
	res.Size, res.Body = int64(len(body)), io.NopCloser(strings.NewReader(body))
	return res, nil
}

// entries returns the producer of a Listing of links.
func (s *site) entries(links []string) func() (fetch.Entry, error) {
	i := 0
	return func() (fetch.Entry, error) {
		if i == len(links) {
			return fetch.Entry{}, io.EOF
		}
		i++
		if links[i-1] == "garbage" {
			return fetch.Entry{}, fmt.Errorf("line %q: %w", "garbage", fetch.ErrUnparsed)
		}
		u, err := url.ParseLenient(links[i-1])
		if err != nil {
			return fetch.Entry{}, err
		}
		kind := fetch.ResourceFile
		s.mu.Lock()
		if p, ok := s.lookup(u); ok && p.links != nil && u.Scheme != "http" {
			kind = fetch.ResourceMenu
		}
		s.mu.Unlock()
		return fetch.Entry{Name: links[i-1], URL: u, Kind: kind, Size: -1}, nil
	}
}

func (s *site) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	p, ok, err := s.request(ctx, req)
	if err != nil {
		return nil, err
	}
	if !ok || p.links == nil {
		return nil, fetch.Errorf(fetch.Unsupported, "not a listing")
	}
	return fetch.NewListing(s.entries(p.links), nil), nil
}

// bodySite is a site whose listings are read from their bodies.
type bodySite struct{ *site }

func (s bodySite) ListBody(req *fetch.Request, res *fetch.Resource, body io.Reader) (*fetch.Listing, error) {
	if res.Kind != fetch.ResourceMenu {
		return nil, fetch.Errorf(fetch.Unsupported, "not a listing")
	}
	b, _ := io.ReadAll(body)
	return fetch.NewListing(s.entries(strings.Fields(string(b))), nil), nil
}

func (s *site) client(schemes ...string) *fetch.Client {
	c := &fetch.Client{PerHost: -1}
	for _, sc := range schemes {
		if s.listerOnly && sc != "http" {
			c.Register(sc, s)
		} else {
			c.Register(sc, bodySite{s})
		}
	}
	return c
}

func (s *site) count(u string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, f := range s.fetched {
		if f == u {
			n++
		}
	}
	return n
}

// visits runs a crawl and returns the URLs visited, sorted.
func visits(t *testing.T, c *Crawler, seeds ...string) ([]string, Stats) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	c.Visit = func(ctx context.Context, p *Page) error {
		mu.Lock()
		defer mu.Unlock()
		if p.Err != nil && p.URL == nil {
			got = append(got, "ERR (unparsed)")
			return nil
		}
		if p.Err != nil {
			got = append(got, "ERR "+p.URL.String())
			return nil
		}
		got = append(got, fmt.Sprintf("%d %s", p.Depth, p.URL))
		return nil
	}
	st, err := c.Run(context.Background(), seeds...)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got, st
}

func gopherHole() *site {
	return &site{pages: map[string]page{
		"gopher://hole.example/1/":    {links: []string{"gopher://hole.example/0/a", "gopher://hole.example/1/sub", "gopher://hole.example/0/b", "garbage", "gopher://hole.example/7/search"}},
		"gopher://hole.example/0/a":   {body: "alpha"},
		"gopher://hole.example/0/b":   {body: "beta"},
		"gopher://hole.example/1/sub": {links: []string{"gopher://hole.example/0/c", "gopher://hole.example/1/", "gopher://hole.example/0/a", "gopher://HOLE.example:70/0/%61", "gopher://hole.example:70/1/", "gopher://other.example/0/x", "telnet://hole.example/", "file:///etc/passwd", "mailto:x@hole.example"}},
		"gopher://hole.example/0/c":   {body: "gamma"},
		"gopher://other.example/0/x":  {body: "other"},
		"file:///etc/passwd":          {body: "root"},
	}}
}

// Depth, dedupe and the default scope: links to the seed's host in the
// seed's scheme, each URL once, cycles and repeats ignored; never telnet,
// file or mailto.
func TestCrawlDepthAndDedupe(t *testing.T) {
	for _, tt := range []struct {
		depth int
		want  []string
	}{
		{0, []string{"0 gopher://hole.example/1/"}},
		{1, []string{"0 gopher://hole.example/1/", "1 gopher://hole.example/0/a", "1 gopher://hole.example/0/b", "1 gopher://hole.example/1/sub"}},
		{5, []string{"0 gopher://hole.example/1/", "1 gopher://hole.example/0/a", "1 gopher://hole.example/0/b", "1 gopher://hole.example/1/sub", "2 gopher://hole.example/0/c"}},
	} {
		s := gopherHole()
		got, st := visits(t, &Crawler{Client: s.client("gopher", "file"), Depth: tt.depth, Parallel: 4}, "gopher://hole.example/1/")
		if !slices.Equal(got, tt.want) {
			t.Errorf("depth %d: visited\n%q\nwant\n%q", tt.depth, got, tt.want)
		}
		for _, u := range got {
			if n := s.count(strings.Fields(u)[1]); n != 1 {
				t.Errorf("depth %d: %s fetched %d times", tt.depth, u, n)
			}
		}
		if tt.depth == 5 {
			// Out of scope: the search, other host, telnet, mailto; the
			// file is local, named by a network resource. The listings'
			// bytes are their entries' names, one a line.
			want := Stats{Fetched: 5, Bytes: st.Bytes, OutOfScope: 4, Local: 1, Unparsed: 1}
			if st != want {
				t.Errorf("stats %+v, want %+v", st, want)
			}
		}
	}
}

// Scope: other hosts with AnyHost; file only when named; a prefix.
func TestCrawlScope(t *testing.T) {
	s := gopherHole()
	got, _ := visits(t, &Crawler{Client: s.client("gopher", "file"), Depth: 5, Scope: Scope{AnyHost: true}}, "gopher://hole.example/1/")
	if !slices.Contains(got, "2 gopher://other.example/0/x") || slices.Contains(got, "2 file:///etc/passwd") {
		t.Errorf("AnyHost: %q", got)
	}
	s = gopherHole()
	got, _ = visits(t, &Crawler{Client: s.client("gopher", "file"), Depth: 5, Scope: Scope{AnyHost: true, Schemes: []string{"gopher", "file"}}}, "gopher://hole.example/1/")
	// A network resource never leads to local files, whatever the scope
	// (issue 25: a remote page made the crawler read /etc/passwd).
	if slices.Contains(got, "2 file:///etc/passwd") || !slices.Contains(got, "2 gopher://other.example/0/x") || s.count("file:///etc/passwd") != 0 {
		t.Errorf("Schemes gopher, file: %q", got)
	}
	s = gopherHole()
	got, _ = visits(t, &Crawler{Client: s.client("gopher"), Depth: 5, Scope: Scope{Prefixes: []string{"gopher://hole.example/1"}}}, "gopher://hole.example/1/")
	if want := []string{"0 gopher://hole.example/1/", "1 gopher://hole.example/1/sub"}; !slices.Equal(got, want) {
		t.Errorf("prefix: %q, want %q", got, want)
	}
	// A file: seed is fetched, but its scheme is not implied for links.
	s = &site{pages: map[string]page{
		"file:///d/":  {links: []string{"file:///d/x"}},
		"file:///d/x": {body: "x"},
	}}
	got, _ = visits(t, &Crawler{Client: s.client("file"), Depth: 5}, "file:///d/")
	if want := []string{"0 file:///d/"}; !slices.Equal(got, want) {
		t.Errorf("file seed: %q, want %q", got, want)
	}
	// From a file: seed, with file in the scope, local links are followed.
	got, _ = visits(t, &Crawler{Client: s.client("file"), Depth: 5, Scope: Scope{Schemes: []string{"file"}}}, "file:///d/")
	if want := []string{"0 file:///d/", "1 file:///d/x"}; !slices.Equal(got, want) {
		t.Errorf("file seed, file in scope: %q, want %q", got, want)
	}
}

// robots.txt: disallowed paths are not fetched; Crawl-delay spaces the
// host's requests; a 5xx robots.txt disallows everything, a 404 nothing.
func TestCrawlRobots(t *testing.T) {
	pages := func(robots page) *site {
		return &site{pages: map[string]page{
			"http://web.example/robots.txt": robots,
			"http://web.example/":           {links: []string{"http://web.example/a", "http://web.example/private/x", "http://web.example/b"}},
			"http://web.example/a":          {body: "a"},
			"http://web.example/b":          {body: "b"},
			"http://web.example/private/x":  {body: "secret"},
		}}
	}
	s := pages(page{body: "User-agent: *\nDisallow: /private\nCrawl-delay: 0.2\n"})
	got, st := visits(t, &Crawler{Client: s.client("http"), Depth: 1, Parallel: 4, PerHost: 4}, "http://web.example/")
	want := []string{"0 http://web.example/", "1 http://web.example/a", "1 http://web.example/b"}
	if !slices.Equal(got, want) || st.Robots != 1 || s.count("http://web.example/private/x") != 0 {
		t.Errorf("visited %q (robots %d), want %q", got, st.Robots, want)
	}
	ts := s.times["web.example"][1:] // after robots.txt: the three pages
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	if gap := ts[len(ts)-1].Sub(ts[0]); gap < 350*time.Millisecond {
		t.Errorf("Crawl-delay 0.2: three pages within %v", gap)
	}

	s = pages(page{err: fetch.Reply(fetch.Unavailable, 503, "down")})
	if got, st := visits(t, &Crawler{Client: s.client("http"), Depth: 1}, "http://web.example/"); len(got) != 0 || st.Robots != 1 {
		t.Errorf("robots.txt 503: visited %q, robots %d; want nothing", got, st.Robots)
	}
	delete(s.pages, "http://web.example/robots.txt")
	if got, _ := visits(t, &Crawler{Client: s.client("http"), Depth: 1}, "http://web.example/"); len(got) != 4 {
		t.Errorf("no robots.txt: visited %q, want all 4", got)
	}
	s = pages(page{body: "User-agent: *\nDisallow: /\n"})
	if got, _ := visits(t, &Crawler{Client: s.client("http"), Depth: 1, IgnoreRobots: true}, "http://web.example/"); len(got) != 4 {
		t.Errorf("IgnoreRobots: visited %q, want all 4", got)
	}
}

// pipeDial is a Client.DialContext that connects to nothing: one end of a
// pipe, closed at once. The policy has judged the address before it is
// called.
func pipeDial(ctx context.Context, network, addr string) (net.Conn, error) {
	a, b := net.Pipe()
	b.Close()
	return a, nil
}

// rebinding answers public.example with 192.0.2.10 for its first lookups
// and 127.0.0.1 after (DNS rebinding), other names from its Network.
type rebinding struct {
	fetchtest.Network
	mu     sync.Mutex
	public int // lookups of rebind.example still to answer publicly
}

func (r *rebinding) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if host != "rebind.example" {
		return r.Network.LookupNetIP(ctx, network, host)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.public > 0 {
		r.public--
		return []netip.Addr{netip.MustParseAddr("192.0.2.11")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// A link from a public page to a private address is not followed; from a
// private seed, it is. The rule is judged at each dial on the address
// dialed: a name that resolved to a public address when the page was
// fetched and to the loopback when its link is (DNS rebinding) is refused.
func TestCrawlHopRule(t *testing.T) {
	s := &site{pages: map[string]page{
		"gopher://public.example/1/":       {links: []string{"gopher://inside.example/0/secret", "gopher://127.0.0.1/0/x", "gopher://public.example/0/ok"}},
		"gopher://inside.example/1/":       {links: []string{"gopher://inside.example/0/secret"}},
		"gopher://public.example/0/ok":     {body: "ok"},
		"gopher://inside.example/0/secret": {body: "secret"},
		"gopher://127.0.0.1/0/x":           {body: "x"},
	}}
	s.dial = true
	c := s.client("gopher")
	c.DialContext = pipeDial
	c.Resolver = &fetchtest.Network{Hosts: map[string]string{"public.example": "192.0.2.10", "inside.example": "10.1.2.3"}}
	got, st := visits(t, &Crawler{Client: c, Depth: 2, Scope: Scope{AnyHost: true}}, "gopher://public.example/1/")
	if want := []string{"0 gopher://public.example/1/", "1 gopher://public.example/0/ok"}; !slices.Equal(got, want) || st.Private != 2 {
		t.Errorf("from a public seed: %q (private %d), want %q", got, st.Private, want)
	}
	got, _ = visits(t, &Crawler{Client: c, Depth: 2, Scope: Scope{AnyHost: true}}, "gopher://inside.example/1/")
	if want := []string{"0 gopher://inside.example/1/", "1 gopher://inside.example/0/secret"}; !slices.Equal(got, want) {
		t.Errorf("from a private seed: %q, want %q", got, want)
	}

	s.pages["gopher://rebind.example/1/"] = page{links: []string{"gopher://rebind.example/0/a", "gopher://rebind.example/0/b"}}
	s.pages["gopher://rebind.example/0/a"] = page{body: "a"}
	s.pages["gopher://rebind.example/0/b"] = page{body: "b"}
	c.Resolver = &rebinding{Network: fetchtest.Network{Hosts: map[string]string{}}, public: 2}
	got, st = visits(t, &Crawler{Client: c, Depth: 1, Parallel: 1, IgnoreRobots: true}, "gopher://rebind.example/1/")
	if len(got) != 2 || st.Private != 1 || s.count("gopher://rebind.example/0/a")+s.count("gopher://rebind.example/0/b") != 2 {
		t.Errorf("DNS rebinding after two public answers: visited %q (private %d), want the seed and one link, the other refused", got, st.Private)
	}
}

// recorder is a Sink that keeps what it is given, whole.
type recorder struct {
	mu   sync.Mutex
	recs map[string]string
}

func (r *recorder) Do(ctx context.Context, c *fetch.Client, req *fetch.Request) (*fetch.Resource, error) {
	res, err := c.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	res.Body = &recBody{r: r, u: req.URL.String(), src: res.Body, b: &b}
	return res, nil
}

type recBody struct {
	r   *recorder
	u   string
	src io.ReadCloser
	b   *strings.Builder
}

func (t *recBody) Read(p []byte) (int, error) {
	n, err := t.src.Read(p)
	t.b.Write(p[:n])
	return n, err
}

func (t *recBody) Close() error {
	t.r.mu.Lock()
	t.r.recs[t.u] = t.b.String()
	t.r.mu.Unlock()
	return t.src.Close()
}

// The sink records every resource whole, even those Visit does not read.
func TestCrawlSink(t *testing.T) {
	s := gopherHole()
	rec := &recorder{recs: map[string]string{}}
	c := &Crawler{Client: s.client("gopher"), Depth: 5, Sink: rec}
	if _, err := c.Run(context.Background(), "gopher://hole.example/1/"); err != nil {
		t.Fatal(err)
	}
	if len(rec.recs) != 5 || rec.recs["gopher://hole.example/0/c"] != "gamma" {
		t.Errorf("recorded %q", rec.recs)
	}
}

// An error from Visit stops the crawl; Run returns it.
func TestCrawlVisitStops(t *testing.T) {
	s := gopherHole()
	stop := errors.New("enough")
	c := &Crawler{Client: s.client("gopher"), Depth: 5, Parallel: 1,
		Visit: func(ctx context.Context, p *Page) error {
			if p.Depth == 1 {
				return stop
			}
			return nil
		}}
	_, err := c.Run(context.Background(), "gopher://hole.example/1/")
	if err != stop {
		t.Errorf("Run = %v, want Visit's error", err)
	}
	if s.count("gopher://hole.example/0/c") != 0 {
		t.Error("the crawl went on after Visit's error")
	}
}

// Failures are visited with their error and counted; a seed that does not
// parse is one of them.
func TestCrawlFailures(t *testing.T) {
	s := gopherHole()
	s.pages["gopher://hole.example/0/b"] = page{err: fetch.Errorf(fetch.Connect, "refused")}
	got, st := visits(t, &Crawler{Client: s.client("gopher"), Depth: 1}, "gopher://hole.example/1/", "gopher://hole.example:bad/")
	if !slices.Contains(got, "ERR gopher://hole.example/0/b") || st.Failed != 2 || st.Fetched != 3 {
		t.Errorf("visited %q, stats %+v", got, st)
	}
}

// The WARC writer of fetch/warc is a Sink.
var _ Sink = (*warc.Writer)(nil)

// Tee makes the recorder a Recorder: it records the listings the crawl
// renders too.
func (r *recorder) Tee(req *fetch.Request, res *fetch.Resource) io.ReadCloser {
	return &recBody{r: r, u: req.URL.String(), src: res.Body, b: &strings.Builder{}}
}

// The listings a crawl makes through the handler's Lister (an FTP
// directory, one LIST) go through the Sink as the other fetches do
// (issue 25), and their links are followed all the same.
func TestCrawlSinkRecordsListings(t *testing.T) {
	s := &site{listerOnly: true, pages: map[string]page{
		"ftp://h.example/pub/":      {links: []string{"ftp://h.example/pub/sub/", "ftp://h.example/pub/f"}},
		"ftp://h.example/pub/f":     {body: "f"},
		"ftp://h.example/pub/sub/":  {links: []string{"ftp://h.example/pub/sub/g"}},
		"ftp://h.example/pub/sub/g": {body: "g"},
	}}
	rec := &recorder{recs: map[string]string{}}
	st, err := (&Crawler{Client: s.client("ftp"), Depth: 3, Sink: rec}).Run(context.Background(), "ftp://h.example/pub/")
	if err != nil || st.Fetched != 4 {
		t.Fatalf("Run = %+v, %v", st, err)
	}
	want := map[string]string{
		"ftp://h.example/pub/":      "ftp://h.example/pub/sub/\nftp://h.example/pub/f\n",
		"ftp://h.example/pub/f":     "f",
		"ftp://h.example/pub/sub/":  "ftp://h.example/pub/sub/g\n",
		"ftp://h.example/pub/sub/g": "g",
	}
	if !maps.Equal(rec.recs, want) {
		t.Errorf("recorded %q, want %q", rec.recs, want)
	}
}
