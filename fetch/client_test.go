package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/url"
)

func staticHandler(body string) HandlerFunc {
	return func(ctx context.Context, req *Request) (*Resource, error) {
		return &Resource{Size: int64(len(body)), Body: io.NopCloser(strings.NewReader(body))}, nil
	}
}

func TestClientDispatch(t *testing.T) {
	c := new(Client)
	c.Register("ftp", staticHandler("data"))
	ctx := context.Background()

	res, err := c.Fetch(ctx, "ftp://h/f")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "data" || res.URL.String() != "ftp://h/f" {
		t.Errorf("got %q from %v", b, res.URL)
	}

	tests := []struct {
		url  string
		kind Kind
		msg  string
	}{
		{"foo://h/x", Unsupported, `unknown scheme "foo"`},
		{"wais://h/db", Unsupported, `scheme "wais" is not supported`},
		{"telnet://h/", Unsupported, "designates a service"},
		{"ftp://h/a%0D%0Ab", Refused, "CR"},
		{"ftp://h:25/x", Refused, "port 25"},
		{"ftp://h/a b", Malformed, "offset"},
	}
	for _, tt := range tests {
		_, err := c.Fetch(ctx, tt.url)
		if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Fetch(%q) = %v, want kind %v mentioning %q", tt.url, err, tt.kind, tt.msg)
		}
	}
}

func TestClientRegisterPanics(t *testing.T) {
	for name, f := range map[string]func(c *Client){
		"nil":       func(c *Client) { c.Register("x", nil) },
		"duplicate": func(c *Client) { c.Register("x", staticHandler("")); c.Register("x", staticHandler("")) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			f(new(Client))
		}()
	}
}

// The Client names the URL in errors, with the password redacted, once.
func TestClientErrorsRedact(t *testing.T) {
	c := new(Client)
	c.Register("ftp", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		return nil, Errorf(Auth, "530 Login incorrect")
	}))
	_, err := c.Fetch(context.Background(), "ftp://joe:s3cret@h/f")
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "ftp://joe:****@h/f") {
		t.Fatalf("error = %v, want the URL with the password redacted", err)
	}
	if got := strings.Count(err.Error(), "ftp://"); got != 1 {
		t.Errorf("URL appears %d times in %q", got, err)
	}
	_, err = c.Fetch(context.Background(), "ftp://joe:s3cret@h/a b")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("parse error shows the password: %v", err)
	}
}

func TestClientBodyErrors(t *testing.T) {
	c := new(Client)
	c.Register("ftp", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		r := io.MultiReader(strings.NewReader("part"), errReader{Errorf(Incomplete, "426 transfer aborted")})
		return &Resource{Size: -1, Body: io.NopCloser(r)}, nil
	}))
	res, err := c.Fetch(context.Background(), "ftp://h/f")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(res.Body)
	if !errors.Is(err, Incomplete) || !strings.Contains(err.Error(), "ftp://h/f") {
		t.Errorf("read error = %v, want Incomplete naming the URL", err)
	}
	res.Body.Close()
	res.Body.Close()
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// At most PerHost transfers to one host are open at once; closing a body
// frees its slot.
func TestClientPerHost(t *testing.T) {
	c := &Client{PerHost: 1}
	c.Register("ftp", staticHandler("x"))
	res1, err := c.Fetch(context.Background(), "ftp://h/1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Fetch(ctx, "ftp://h/2"); err == nil {
		t.Fatal("second transfer to the same host got a slot while the first was open")
	}
	if res, err := c.Fetch(context.Background(), "ftp://other/2"); err != nil {
		t.Fatalf("another host: %v", err)
	} else {
		res.Body.Close()
	}
	res1.Body.Close()
	res1.Body.Close() // twice is safe, and frees one slot only
	res2, err := c.Fetch(context.Background(), "ftp://h/2")
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	res2.Body.Close()
}

type planner struct{ HandlerFunc }

func (planner) Plan(req *Request) ([]string, error) {
	return []string{"RETR " + req.URL.FTP().Name}, nil
}

func TestClientPlan(t *testing.T) {
	c := new(Client)
	c.Register("ftp", planner{staticHandler("")})
	c.Register("http", staticHandler(""))
	u, _ := url.Parse("ftp://h/f")
	lines, err := c.Plan(&Request{URL: u})
	if err != nil || len(lines) != 1 || lines[0] != "RETR f" {
		t.Errorf("Plan = %q, %v", lines, err)
	}
	u, _ = url.Parse("http://h/")
	if _, err := c.Plan(&Request{URL: u}); !errors.Is(err, Unsupported) {
		t.Errorf("Plan without a Planner = %v, want Unsupported", err)
	}
	u, _ = url.Parse("ftp://h/%0D")
	if _, err := c.Plan(&Request{URL: u}); !errors.Is(err, Refused) {
		t.Errorf("Plan of an unsafe URL = %v, want Refused", err)
	}
}

// A hop (a redirect a handler follows) gets none of the Client's
// credentials: they were given for the first host.
func TestClientHopGetsNoCredentials(t *testing.T) {
	var got []*url.Userinfo
	c := &Client{User: url.UserPassword("joe", "pw")}
	c.Register("ftp", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		got = append(got, req.User)
		return &Resource{Size: 0, Body: NoBody}, nil
	}))
	u, _ := url.Parse("ftp://h/f")
	for _, hop := range []bool{false, true} {
		res, err := c.Do(context.Background(), &Request{URL: u, Hop: hop})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if got[0] == nil || got[0].Username != "joe" || got[1] != nil {
		t.Errorf("credentials given = %v, %v; want joe's, then none on the hop", got[0], got[1])
	}
}

// Do works on a copy: the caller's Request is never modified, so one
// Request can go to two Clients without carrying the first one's
// credentials, timeouts or trace.
func TestClientDoKeepsRequest(t *testing.T) {
	var seen []*Request
	h := HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		seen = append(seen, req)
		return &Resource{Size: 0, Body: NoBody}, nil
	})
	var trace strings.Builder
	first := &Client{User: url.UserPassword("joe", "pw"), ConnectTimeout: time.Second, Trace: NewTrace(&trace)}
	first.Register("ftp", h)
	second := new(Client)
	second.Register("ftp", h)
	req := &Request{URL: mustParse(t, "ftp://h/f")}
	before := *req
	for _, c := range []*Client{first, second} {
		res, err := c.Do(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if !reflect.DeepEqual(*req, before) {
		t.Errorf("Do modified the request: %+v, was %+v", *req, before)
	}
	if seen[0].User == nil || seen[0].User.Username != "joe" || seen[0].Trace == nil {
		t.Errorf("the first Client's settings did not reach its handler: %+v", seen[0])
	}
	if seen[1].User != nil || seen[1].ConnectTimeout != 0 || seen[1].Trace != nil {
		t.Errorf("the second Client's handler got the first one's settings: %+v", seen[1])
	}
}

// An entry of the per-host table lives only while a transfer to its host
// is in progress or waiting.
func TestClientPerHostTableShrinks(t *testing.T) {
	c := &Client{PerHost: 1}
	c.Register("ftp", staticHandler("x"))
	ctx := context.Background()
	for i := range 200000 {
		res, err := c.Do(ctx, &Request{URL: &url.URL{Scheme: "ftp", Host: fmt.Sprintf("h%d.example", i), Path: "f"}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	held, err := c.Fetch(ctx, "ftp://busy.example/f")
	if err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithCancel(ctx)
	cancel()
	c.Fetch(waitCtx, "ftp://busy.example/g") // gives up waiting
	c.mu.Lock()
	n := len(c.hosts)
	c.mu.Unlock()
	if n != 1 {
		t.Errorf("%d hosts in the table with one transfer open, want 1", n)
	}
	held.Body.Close()
	c.mu.Lock()
	n = len(c.hosts)
	c.mu.Unlock()
	if n != 0 {
		t.Errorf("%d hosts left in the table after every transfer closed, want 0", n)
	}
}

// Credentials given apart from the URL are held to the same rule as the
// URL's: a TAB (or CR, LF, NUL) would reach a protocol line (FTP USER).
func TestClientRefusesControlsInUser(t *testing.T) {
	c := &Client{User: &url.Userinfo{Username: "Q\tZ", Password: "pw", HasPassword: true}}
	called := false
	c.Register("ftp", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		called = true
		return &Resource{Body: NoBody}, nil
	}))
	_, err := c.Fetch(context.Background(), "ftp://h/f")
	if !errors.Is(err, Refused) || called {
		t.Errorf("Client.User with a TAB: %v (handler called: %v), want Refused", err, called)
	}
	_, err = c.Do(context.Background(), &Request{URL: mustParse(t, "ftp://h/f"), User: url.UserPassword("u", "p\r\nDELE x")})
	if !errors.Is(err, Refused) {
		t.Errorf("Request.User with CR LF: %v, want Refused", err)
	}
}

type sessionBody struct {
	io.Reader
	strings.Builder
}

func (*sessionBody) Close() error { return nil }

// The Body claims io.Writer only when the handler's body is one.
func TestClientBodyWriter(t *testing.T) {
	c := new(Client)
	c.Register("ftp", staticHandler("x"))
	sess := &sessionBody{Reader: strings.NewReader("login: ")}
	c.Register("telnet", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		return &Resource{Kind: ResourceSession, Size: -1, Body: sess}, nil
	}))
	res, err := c.Fetch(context.Background(), "ftp://h/f")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Body.(io.Writer); ok {
		t.Error("a file's Body claims to be an io.Writer")
	}
	res.Body.Close()
	res, err = c.Fetch(context.Background(), "telnet://h/")
	if err != nil {
		t.Fatal(err)
	}
	w, ok := res.Body.(io.Writer)
	if !ok {
		t.Fatal("a session's Body is not an io.Writer")
	}
	io.WriteString(w, "joe\r\n")
	if sess.String() != "joe\r\n" {
		t.Errorf("session got %q", sess.String())
	}
	res.Body.Close()
}

// A hop the Client follows takes a slot for the host it goes to.
// Two transfers that redirect into each other's hosts, with one slot per
// host, both finish: a hop frees the slot of the request it leaves, so
// neither waits for the other's.
func TestClientCrossedHopsDoNotDeadlock(t *testing.T) {
	c := &Client{PerHost: 1}
	var both sync.WaitGroup
	both.Add(2)
	c.Register("ftp", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		if req.Hop {
			return &Resource{Size: 0, Body: NoBody}, nil
		}
		// Each first request holds its host's slot until the other one
		// does too, then hops to the other host.
		both.Done()
		both.Wait()
		other := map[string]string{"a.example": "b.example", "b.example": "a.example"}[req.URL.Host]
		return &Resource{Redirect: &url.URL{Scheme: "ftp", Host: other, Path: "f"}, Body: NoBody}, nil
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errs := make(chan error, 2)
	for _, h := range []string{"a.example", "b.example"} {
		go func() {
			res, err := c.Fetch(ctx, "ftp://"+h+"/f")
			if err == nil {
				err = res.Body.Close()
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("crossed redirects: %v", err)
		}
	}
}

func TestClientHopTakesSlot(t *testing.T) {
	c := &Client{PerHost: 1}
	c.Register("ftp", HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		if req.URL.Host == "first.example" {
			return &Resource{Redirect: &url.URL{Scheme: "ftp", Host: "second.example", Path: "f"}, Body: NoBody}, nil
		}
		return &Resource{Size: 0, Body: NoBody}, nil
	}))
	held, err := c.Fetch(context.Background(), "ftp://second.example/g")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Fetch(ctx, "ftp://first.example/f"); !errors.Is(err, Timeout) {
		t.Errorf("hop to a host whose only slot is taken: %v, want it to wait (Timeout)", err)
	}
	held.Body.Close()
	res, err := c.Fetch(context.Background(), "ftp://first.example/f")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
}

func TestClientReplace(t *testing.T) {
	c := new(Client)
	first := HandlerFunc(func(context.Context, *Request) (*Resource, error) {
		return &Resource{Size: 1, Body: io.NopCloser(strings.NewReader("1"))}, nil
	})
	second := HandlerFunc(func(context.Context, *Request) (*Resource, error) {
		return &Resource{Size: 1, Body: io.NopCloser(strings.NewReader("2"))}, nil
	})
	if old := c.Replace("gopher", first); old != nil {
		t.Errorf("Replace on an empty Client returned %v, want nil", old)
	}
	if old := c.Replace("gopher", second); old == nil {
		t.Error("Replace did not return the handler it replaced")
	}
	res, err := c.Fetch(context.Background(), "gopher://h/0x")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if b, _ := io.ReadAll(res.Body); string(b) != "2" {
		t.Errorf("fetched %q through the replaced handler, want %q", b, "2")
	}
}

// addresser is a handler that names the address its requests dial.
type addresser struct {
	HandlerFunc
	addr string
}

func (a addresser) Address(*Request) string { return a.addr }

// TestClientAddresserSlot checks that a request whose handler names its
// address counts against the same per-host limit as a URL naming that
// host and port, and that a wait for it names the address.
func TestClientAddresserSlot(t *testing.T) {
	for _, tt := range []struct{ addr, url, wait string }{
		{"news.example:119", "nntp://news.example/x", "news.example:119"},
		{"news.example:119", "nntp://news.example:119/x", "news.example:119"},
		{"[::1]:119", "nntp://[::1]/x", "[::1]:119"},
		{"not an address", "", "not an address"},
	} {
		c := &Client{PerHost: 1, Parser: url.Parser{Lenient: true}}
		h := staticHandler("x")
		c.Register("news", addresser{HandlerFunc: h, addr: tt.addr})
		c.Register("nntp", h)
		first := "news:one@example.org"
		if tt.url != "" {
			first = tt.url
		}
		res, err := c.Fetch(context.Background(), first)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = c.Fetch(ctx, "news:two@example.org")
		if err == nil || !strings.Contains(err.Error(), "slot to "+tt.wait+":") {
			t.Errorf("%s after %s: %v, want a wait for a slot to %s", tt.addr, first, err, tt.wait)
		}
		res.Body.Close()
	}
}
