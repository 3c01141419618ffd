package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rfc1738/fetch/url"
)

// redirector is a handler whose URLs /r/N redirect to the URL N names in
// its table, and whose other URLs answer their own path; it records each
// request it gets.
type redirector struct {
	to   map[string]string
	mu   sync.Mutex
	got  []*Request
	body atomic.Int32 // bodies of redirects not yet closed
}

func (rd *redirector) Fetch(ctx context.Context, req *Request) (*Resource, error) {
	rd.mu.Lock()
	rd.got = append(rd.got, req)
	rd.mu.Unlock()
	if to, ok := rd.to[req.URL.Host+"/"+req.URL.Path]; ok {
		u, err := url.Parse(to)
		if err != nil {
			return nil, err
		}
		rd.body.Add(1)
		return &Resource{Redirect: u, Status: 302, Size: 5, Body: &countedBody{Reader: strings.NewReader("moved"), n: &rd.body}}, nil
	}
	return &Resource{Size: -1, Body: io.NopCloser(strings.NewReader(req.URL.Host + "/" + req.URL.Path))}, nil
}

func (rd *redirector) requests() []*Request {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return append([]*Request(nil), rd.got...)
}

type countedBody struct {
	io.Reader
	n    *atomic.Int32
	once sync.Once
}

func (b *countedBody) Close() error { b.once.Do(func() { b.n.Add(-1) }); return nil }

func TestClientFollows(t *testing.T) {
	rd := &redirector{to: map[string]string{
		"a.example/one":   "ftp://b.example/two",
		"b.example/two":   "ftp://a.example/end",
		"a.example/file":  "file:///etc/passwd",
		"a.example/mail":  "mailto:joe@example.org",
		"a.example/zork":  "zork://h/x",
		"a.example/loop":  "ftp://a.example/loop",
		"a.example/creds": "ftp://b.example/end",
		"a.example/home":  "ftp://a.example/end",
		"a.example/port":  "ftp://a.example:2121/end",
		"a.example/own":   "ftp://ann:pw2@b.example/end",
	}}
	c := &Client{Policy: Policy{AllowPortOverride: true}}
	c.Register("ftp", rd)
	c.Register("gopher", rd)

	body, err := get(t, c, &Request{URL: mustParse(t, "ftp://a.example/one")})
	if err != nil || body != "a.example/end" {
		t.Fatalf("two hops: %q, %v", body, err)
	}
	for _, tt := range []struct {
		url  string
		kind Kind
		text string
	}{
		{"ftp://a.example/file", Refused, "may not lead to a local file"},
		{"ftp://a.example/mail", Refused, "names no data object"},
		{"ftp://a.example/zork", Unsupported, "unknown scheme"},
		{"ftp://a.example/loop", Protocol, "redirect limit is 10"},
	} {
		_, err := get(t, c, &Request{URL: mustParse(t, tt.url)})
		if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.text) || !strings.Contains(err.Error(), tt.url) {
			t.Errorf("%s: %v, want kind %v saying %q and naming the URL", tt.url, err, tt.kind, tt.text)
		}
	}
	if n := rd.body.Load(); n != 0 {
		t.Errorf("%d redirect bodies left open", n)
	}

	// Credentials: dropped for another host or port, kept back home, a
	// target's own login used.
	for _, tt := range []struct {
		url, want string
	}{
		{"ftp://joe:pw@a.example/creds", ""},
		{"ftp://joe:pw@a.example/port", ""},
		{"ftp://joe:pw@a.example/home", "joe"},
		{"ftp://joe:pw@a.example/own", "ann"},
	} {
		before := len(rd.requests())
		if _, err := get(t, c, &Request{URL: mustParse(t, tt.url), Header: map[string][]string{"Authorization": {"x"}}}); err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		hop := rd.requests()[before+1]
		got := ""
		if u := hop.Credentials(); u != nil {
			got = u.Username
		}
		if got != tt.want || !hop.Hop {
			t.Errorf("%s: the hop to %s has credentials %q (hop %v), want %q", tt.url, hop.URL, got, hop.Hop, tt.want)
		}
		if a := hop.Header.Get("Authorization"); (a != "") != (tt.want == "joe") {
			t.Errorf("%s: the hop to %s has Authorization %q", tt.url, hop.URL, a)
		}
	}
	// The Client's own User is not lent to a hop.
	cu := &Client{User: url.UserPassword("joe", "pw")}
	cu.Register("ftp", rd)
	before := len(rd.requests())
	if _, err := get(t, cu, &Request{URL: mustParse(t, "ftp://a.example/creds")}); err != nil {
		t.Fatal(err)
	}
	if r := rd.requests(); r[before].User == nil || r[before+1].User != nil {
		t.Errorf("Client.User: first request %v, hop %v; want it on the first only", r[before].User, r[before+1].User)
	}
}

func TestClientMaxRedirects(t *testing.T) {
	rd := &redirector{to: map[string]string{"a.example/1": "ftp://a.example/2", "a.example/2": "ftp://a.example/3"}}
	for _, tt := range []struct {
		max  int
		want string
		text string
	}{
		{0, "a.example/3", ""},
		{2, "a.example/3", ""},
		{1, "", "redirect limit is 1"},
		{-1, "", "redirect limit is 0"},
	} {
		c := &Client{MaxRedirects: tt.max}
		c.Register("ftp", rd)
		body, err := get(t, c, &Request{URL: mustParse(t, "ftp://a.example/1")})
		if body != tt.want || (tt.text == "") != (err == nil) || err != nil && (!errors.Is(err, Protocol) || !strings.Contains(err.Error(), tt.text)) {
			t.Errorf("MaxRedirects %d: %q, %v; want %q %q", tt.max, body, err, tt.want, tt.text)
		}
	}
}

func TestClientCheckRedirect(t *testing.T) {
	rd := &redirector{to: map[string]string{"a.example/1": "ftp://b.example/2", "b.example/2": "ftp://c.example/3"}}
	stop := errors.New("no hops to c.example")
	var seen []string
	c := &Client{CheckRedirect: func(next *Request, via []*Resource) error {
		last := via[len(via)-1]
		b, _ := io.ReadAll(last.Body) // the redirect's body is still open
		seen = append(seen, last.URL.String()+" -> "+next.URL.String()+" "+string(b))
		if next.URL.Host == "c.example" {
			return stop
		}
		return nil
	}}
	c.Register("ftp", rd)
	_, err := get(t, c, &Request{URL: mustParse(t, "ftp://a.example/1")})
	if !errors.Is(err, stop) || !strings.Contains(err.Error(), "ftp://b.example/2") {
		t.Errorf("stopped by CheckRedirect: %v, want the hook's error naming ftp://b.example/2", err)
	}
	want := []string{"ftp://a.example/1 -> ftp://b.example/2 moved", "ftp://b.example/2 -> ftp://c.example/3 moved"}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("CheckRedirect saw %q, want %q", seen, want)
	}
	if n := rd.body.Load(); n != 0 {
		t.Errorf("%d redirect bodies left open", n)
	}

	// ErrUseLastResponse: the redirect itself, its body open, the hops
	// before it in Via.
	c.CheckRedirect = func(next *Request, via []*Resource) error {
		if len(via) == 2 {
			return ErrUseLastResponse
		}
		return nil
	}
	res, err := c.Do(context.Background(), &Request{URL: mustParse(t, "ftp://a.example/1")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.Redirect == nil || res.URL.String() != "ftp://b.example/2" || string(b) != "moved" || len(res.Via) != 1 || res.Via[0].URL.String() != "ftp://a.example/1" {
		t.Errorf("ErrUseLastResponse: %s (redirect %v, body %q, via %v)", res.URL, res.Redirect, b, res.Via)
	}
}

// A listing that is a redirect is followed, even to another scheme.
func TestClientListFollows(t *testing.T) {
	c := new(Client)
	var lists atomic.Int32
	c.Register("http", listerFunc(func(ctx context.Context, req *Request) (*Listing, error) {
		lists.Add(1)
		to, _ := url.Parse("gopher://g.example/1/")
		return RedirectListing(&Resource{Redirect: to, Body: NoBody}), nil
	}))
	c.Register("gopher", listerFunc(func(ctx context.Context, req *Request) (*Listing, error) {
		lists.Add(1)
		done := false
		return NewListing(func() (Entry, error) {
			if done {
				return Entry{}, io.EOF
			}
			done = true
			return Entry{Name: "from " + req.URL.String()}, nil
		}, nil), nil
	}))
	l, err := c.List(context.Background(), &Request{URL: mustParse(t, "http://h.example/")})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	e, err := l.Next()
	if err != nil || e.Name != "from gopher://g.example/1/" || lists.Load() != 2 {
		t.Errorf("listing through a redirect: %+v, %v after %d lists", e, err, lists.Load())
	}
}

// listerFunc is a Handler and Lister of one function.
type listerFunc func(ctx context.Context, req *Request) (*Listing, error)

func (f listerFunc) Fetch(ctx context.Context, req *Request) (*Resource, error) {
	return nil, Errorf(Unsupported, "list only")
}
func (f listerFunc) List(ctx context.Context, req *Request) (*Listing, error) { return f(ctx, req) }

// A request marked FromPublic (a crawler's link from a public page) may
// not dial a private address, judged on the address dialed each time:
// a name that resolved to a public address before and resolves to the
// loopback now (DNS rebinding) is refused, and the Resource of a fetch
// that reached a public address says so.
func TestFromPublicRebinding(t *testing.T) {
	n := newTestNet()
	n.serve(t, "192.0.2.10:80", "public")
	n.serve(t, "127.0.0.1:80", "inside")
	var lookups atomic.Int32
	res := &rebinder{testNet: n, answers: []string{"192.0.2.10", "192.0.2.10", "127.0.0.1"}, n: &lookups}
	c := &Client{DialContext: n.DialContext, Resolver: res}
	c.Register("http", dialer("tcp", ""))
	page, err := c.Do(context.Background(), &Request{URL: mustParse(t, "http://rebind.test/")})
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if !page.FromPublic {
		t.Fatalf("a page served from 192.0.2.10: FromPublic false")
	}
	link := &Request{URL: mustParse(t, "http://rebind.test/next"), FromPublic: page.FromPublic}
	if body, err := get(t, c, link); err != nil || body != "public" {
		t.Fatalf("the second fetch (still public): %q, %v", body, err)
	}
	if body, err := get(t, c, link); !errors.Is(err, Refused) {
		t.Errorf("the third lookup answers 127.0.0.1: %q, %v; want Refused", body, err)
	}
	// Without FromPublic, the same answer is a user's own choice.
	if body, err := get(t, c, &Request{URL: mustParse(t, "http://rebind.test/")}); err != nil || body != "inside" {
		t.Errorf("a user's request for a name on the loopback: %q, %v", body, err)
	}
}

// rebinder answers each lookup with the next of its answers (the last
// one again once they run out).
type rebinder struct {
	*testNet
	answers []string
	n       *atomic.Int32
}

func (r *rebinder) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	i := int(r.n.Add(1)) - 1
	if i >= len(r.answers) {
		i = len(r.answers) - 1
	}
	if host != "rebind.test" {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(r.answers[i])}, nil
}
