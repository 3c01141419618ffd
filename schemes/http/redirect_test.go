package http

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

func TestRedirects(t *testing.T) {
	var authSeen atomic.Value
	authSeen.Store("")
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case strings.HasPrefix(p, "/chain/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(p, "/chain/"))
			if n == 0 {
				io.WriteString(w, "end of chain")
				return
			}
			code := []int{301, 302, 303, 307, 308}[n%5]
			http.Redirect(w, r, fmt.Sprintf("/chain/%d", n-1), code)
		case p == "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case p == "/relative/dir/x":
			w.Header().Set("Location", "../y?q=1#frag")
			w.WriteHeader(http.StatusMovedPermanently)
		case p == "/relative/y":
			io.WriteString(w, "y "+r.URL.RawQuery)
		case p == "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case p == "/to-ftp":
			http.Redirect(w, r, "ftp://ftp.example.org/pub/x.txt", http.StatusFound)
		case p == "/to-gopher":
			http.Redirect(w, r, "gopher://gopher.example.org/0/x", http.StatusFound)
		case p == "/to-mailto":
			http.Redirect(w, r, "mailto:joe@example.org", http.StatusFound)
		case p == "/to-unknown":
			http.Redirect(w, r, "zork://h/x", http.StatusFound)
		case p == "/to-smtp":
			http.Redirect(w, r, "http://127.0.0.1:25/", http.StatusFound)
		case p == "/to-crlf":
			http.Redirect(w, r, "/a%0D%0Ab", http.StatusFound)
		case p == "/other-host":
			// The same server under another name: credentials must not follow.
			http.Redirect(w, r, "http://localhost:"+r.Host[strings.LastIndexByte(r.Host, ':')+1:]+"/auth", http.StatusFound)
		case p == "/own-login":
			http.Redirect(w, r, "http://ann:pw2@localhost:"+r.Host[strings.LastIndexByte(r.Host, ':')+1:]+"/auth", http.StatusFound)
		case p == "/auth":
			authSeen.Store(r.Header.Get("Authorization"))
			io.WriteString(w, "auth")
		case p == "/no-location":
			w.WriteHeader(http.StatusFound)
			io.WriteString(w, "no location")
		default:
			http.NotFound(w, r)
		}
	})
	var redirected atomic.Pointer[fetch.Request]
	cross := func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		redirected.Store(req)
		return &fetch.Resource{URL: req.URL, Size: 5, Body: io.NopCloser(strings.NewReader("other"))}, nil
	}
	tests := []struct {
		path  string
		h     *Handler
		want  string
		kind  fetch.Kind
		cross string // the URL the Redirect func must receive
	}{
		{path: "/chain/10", want: "end of chain"},
		{path: "/chain/11", kind: fetch.Protocol},
		{path: "/chain/3", h: &Handler{MaxRedirects: 3}, want: "end of chain"},
		{path: "/chain/4", h: &Handler{MaxRedirects: 3}, kind: fetch.Protocol},
		{path: "/chain/1", h: &Handler{MaxRedirects: -1}, kind: fetch.Protocol},
		{path: "/loop", kind: fetch.Protocol},
		{path: "/relative/dir/x", want: "y q=1"},
		{path: "/to-file", kind: fetch.Refused},
		{path: "/to-file", h: &Handler{Redirect: cross}, kind: fetch.Refused},
		{path: "/to-mailto", h: &Handler{Redirect: cross}, kind: fetch.Refused},
		{path: "/to-unknown", h: &Handler{Redirect: cross}, kind: fetch.Unsupported},
		{path: "/to-ftp", kind: fetch.Unsupported},
		{path: "/to-ftp", h: &Handler{Redirect: cross}, want: "other", cross: "ftp://ftp.example.org/pub/x.txt"},
		{path: "/to-gopher", h: &Handler{Redirect: cross}, want: "other", cross: "gopher://gopher.example.org/0/x"},
		{path: "/to-smtp", kind: fetch.Refused},
		// The handler's check passes, but the dial is held to the request's
		// policy, the zero Policy for a request made without a Client.
		{path: "/to-smtp", h: &Handler{Policy: fetch.Policy{AllowPortOverride: true}.Check}, kind: fetch.Refused},
		{path: "/to-crlf", kind: fetch.Refused},
		{path: "/no-location", want: "no location"},
	}
	for _, tt := range tests {
		h := tt.h
		if h == nil {
			h = &Handler{}
		}
		t.Cleanup(func() { h.Close() })
		redirected.Store(nil)
		res, body, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+tt.path)})
		if tt.kind != 0 {
			if !errors.Is(err, tt.kind) {
				t.Errorf("%s: %v (kind %v), want kind %v", tt.path, err, fetch.KindOf(err), tt.kind)
			}
			continue
		}
		if err != nil || string(body) != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.path, body, err, tt.want)
			continue
		}
		if tt.cross != "" {
			r := redirected.Load()
			if r == nil || r.URL.String() != tt.cross {
				t.Errorf("%s: Redirect got %v, want %s", tt.path, r, tt.cross)
			}
			if res.URL.String() != tt.cross {
				t.Errorf("%s: Resource.URL = %s, want %s", tt.path, res.URL, tt.cross)
			}
		}
	}

	// A redirect not followed because of the limit fails, naming the
	// limit and where it led, and delivers no body.
	for _, tt := range []struct {
		path string
		max  int
		want []string
	}{
		{"/chain/1", -1, []string{"redirect limit is 0", "/chain/0"}},
		{"/chain/4", 3, []string{"redirect limit is 3", "/chain/0"}},
		{"/chain/11", 0, []string{"redirect limit is 10", "/chain/0"}},
	} {
		h := &Handler{MaxRedirects: tt.max}
		t.Cleanup(func() { h.Close() })
		res, _, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+tt.path)})
		if res != nil || !errors.Is(err, fetch.Protocol) {
			t.Errorf("%s with MaxRedirects %d: %v, %v; want an error of kind Protocol", tt.path, tt.max, res, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s with MaxRedirects %d: %q does not name %q", tt.path, tt.max, err, w)
			}
		}
	}

	// Credentials stay with the host they were given for.
	host := strings.TrimPrefix(srv.URL, "http://")
	_, body, err := get(t, newHandler(t), &fetch.Request{URL: parse(t, "http://joe:pw@"+host+"/other-host")})
	if err != nil || string(body) != "auth" || authSeen.Load() != "" {
		t.Errorf("redirect to another host: %q, %v, Authorization %q sent; want none", body, err, authSeen.Load())
	}
	_, _, err = get(t, newHandler(t), &fetch.Request{URL: parse(t, "http://joe:pw@"+host+"/own-login")})
	if err != nil || authSeen.Load() != "Basic YW5uOnB3Mg==" {
		t.Errorf("redirect to a URL with its own login: %v, Authorization %q; want ann's", err, authSeen.Load())
	}
	_, _, err = get(t, newHandler(t), &fetch.Request{URL: parse(t, "http://joe:pw@"+host+"/auth")})
	if err != nil || authSeen.Load() == "" {
		t.Errorf("same host: %v, Authorization %q; want it sent", err, authSeen.Load())
	}
}

// TestRedirectThroughClient follows an http → http redirect and an
// http → other-scheme redirect through a fetch.Client, as schemes.Register
// wires it.
func TestRedirectThroughClient(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a":
			http.Redirect(w, r, "/b", http.StatusMovedPermanently)
		case "/b":
			io.WriteString(w, "b")
		case "/x":
			http.Redirect(w, r, "gopher://127.0.0.1:7070/0sel", http.StatusFound)
		case "/p":
			http.Redirect(w, r, "gopher://127.0.0.1:25/0sel", http.StatusFound)
		}
	})
	c := &fetch.Client{Parser: url.Parser{Lenient: true}}
	h := &Handler{Redirect: c.Do, Policy: func(u *url.URL) error { return c.Policy.Check(u) }}
	t.Cleanup(func() { h.Close() })
	c.Register("http", h)
	c.Register("gopher", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		return &fetch.Resource{Body: io.NopCloser(strings.NewReader("gopher " + req.URL.Gopher().Selector))}, nil
	}))
	ctx := context.Background()
	for path, want := range map[string]string{"/a": "b", "/x": "gopher sel"} {
		res, err := c.Fetch(ctx, srv.URL+path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", path, b, err, want)
		}
	}
	if _, err := c.Fetch(ctx, srv.URL+"/p"); !errors.Is(err, fetch.Refused) {
		t.Errorf("redirect to gopher on port 25: %v, want kind Refused", err)
	}
}

// TestRedirectHopsTakeSlots checks that an http → http redirect to another
// host goes through the Client (its per-host slot and policy), and that a
// redirect to the host already held does not wait for a second slot.
func TestRedirectHopsTakeSlots(t *testing.T) {
	var port string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-other": // 127.0.0.1 → localhost: the same server, another host
			http.Redirect(w, r, "http://localhost:"+port+"/held", http.StatusFound)
		case "/to-self":
			http.Redirect(w, r, "/held", http.StatusFound)
		case "/held":
			io.WriteString(w, "held")
		}
	})
	port = srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	c := &fetch.Client{Parser: url.Parser{Lenient: true}, PerHost: 1}
	var hops atomic.Int32
	var hopWait atomic.Int64 // when set, how long a hop may wait for its slot
	h := &Handler{
		Redirect: func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
			hops.Add(1)
			if d := time.Duration(hopWait.Load()); d > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, d)
				defer cancel()
			}
			return c.Do(ctx, req)
		},
		Policy: func(u *url.URL) error { return c.Policy.Check(u) },
	}
	t.Cleanup(func() { h.Close() })
	c.Register("http", h)
	c.Policy.AllowPortOverride = true // localhost:port is not http's default

	fetchAll := func(ctx context.Context, path string) (string, error) {
		res, err := c.Fetch(ctx, srv.URL+path)
		if err != nil {
			return "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return string(b), err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if b, err := fetchAll(ctx, "/to-self"); err != nil || b != "held" {
		t.Fatalf("redirect to the same host with PerHost 1: %q, %v", b, err)
	}
	if n := hops.Load(); n != 0 {
		t.Errorf("a redirect to the host already held went through the Client %d times", n)
	}

	// Hold localhost's only slot: the hop to localhost must wait for it.
	held, err := c.Fetch(ctx, "http://localhost:"+port+"/held")
	if err != nil {
		t.Fatal(err)
	}
	// The hop's own deadline starts when it is made, not with the fetch:
	// on a busy machine the first request's round trip alone may take
	// longer than the wait.
	hopWait.Store(int64(500 * time.Millisecond))
	_, err = fetchAll(ctx, "/to-other")
	hopWait.Store(0)
	if !errors.Is(err, fetch.Timeout) || hops.Load() != 1 {
		t.Errorf("hop to a host whose slot is taken: %v after %d hops; want a Timeout waiting for the slot", err, hops.Load())
	}
	held.Body.Close()
	if b, err := fetchAll(ctx, "/to-other"); err != nil || b != "held" {
		t.Errorf("hop once the slot is free: %q, %v", b, err)
	}
}
