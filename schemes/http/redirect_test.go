package http

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// TestRedirectReported checks that the Handler makes one exchange: a
// redirect comes back as a Resource with Redirect set, its status,
// header fields and body, and nothing more is requested.
func TestRedirectReported(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		var asked atomic.Int32
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			w.Header().Set("Location", "../y?q=1#frag")
			w.WriteHeader(http.StatusMovedPermanently)
			io.WriteString(w, "moved")
		})
		res, body, err := get(t, tc.handler(t), &fetch.Request{URL: parse(t, srv.URL+"/dir/x")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Redirect == nil || res.Redirect.String() != srv.URL+"/y?q=1" {
			t.Errorf("Redirect = %v, want %s/y?q=1", res.Redirect, srv.URL)
		}
		if res.Status != http.StatusMovedPermanently || string(body) != "moved" || res.Header.Get("Location") == "" {
			t.Errorf("redirect resource: status %d, body %q, header %v", res.Status, body, res.Header)
		}
		if n := asked.Load(); n != 1 {
			t.Errorf("the handler made %d requests, want 1", n)
		}
	})
}

// redirectClient returns a Client whose http handler is h and whose ftp
// and gopher handlers answer "other", recording the requests they get.
func redirectClient(t *testing.T, h *Handler, max int) (*fetch.Client, *atomic.Pointer[fetch.Request]) {
	var redirected atomic.Pointer[fetch.Request]
	other := fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		redirected.Store(req)
		return &fetch.Resource{URL: req.URL, Size: 5, Body: io.NopCloser(strings.NewReader("other"))}, nil
	})
	c := &fetch.Client{Parser: url.Parser{Lenient: true}, MaxRedirects: max}
	c.Register("http", h)
	c.Register("ftp", other)
	c.Register("gopher", other)
	return c, &redirected
}

// clientGet fetches req with c and reads the whole body.
func clientGet(t testing.TB, c *fetch.Client, req *fetch.Request) (*fetch.Resource, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Do(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

func TestRedirects(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
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
			case p == "/to-nntp":
				http.Redirect(w, r, "nntp://news.example.org/g/1", http.StatusFound)
			case p == "/to-smtp":
				http.Redirect(w, r, "http://127.0.0.1:25/", http.StatusFound)
			case p == "/to-crlf":
				http.Redirect(w, r, "/a%0D%0Ab", http.StatusFound)
			case p == "/other-host":
				// The same server under another name: credentials must not follow.
				http.Redirect(w, r, "http://localhost:"+r.Host[strings.LastIndexByte(r.Host, ':')+1:]+"/auth", http.StatusFound)
			case p == "/own-login":
				http.Redirect(w, r, "http://ann:pw2@localhost:"+r.Host[strings.LastIndexByte(r.Host, ':')+1:]+"/auth", http.StatusFound)
			case p == "/back-home":
				http.Redirect(w, r, "/auth", http.StatusFound)
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
		tests := []struct {
			path  string
			max   int
			want  string
			kind  fetch.Kind
			cross string // the URL the other scheme's handler must receive
		}{
			{path: "/chain/10", want: "end of chain"},
			{path: "/chain/11", kind: fetch.Protocol},
			{path: "/chain/3", max: 3, want: "end of chain"},
			{path: "/chain/4", max: 3, kind: fetch.Protocol},
			{path: "/chain/1", max: -1, kind: fetch.Protocol},
			{path: "/loop", kind: fetch.Protocol},
			{path: "/relative/dir/x", want: "y q=1"},
			{path: "/to-file", kind: fetch.Refused},
			{path: "/to-mailto", kind: fetch.Refused},
			{path: "/to-unknown", kind: fetch.Unsupported},
			{path: "/to-nntp", kind: fetch.Unsupported}, // no nntp handler in this Client
			{path: "/to-ftp", want: "other", cross: "ftp://ftp.example.org/pub/x.txt"},
			{path: "/to-gopher", want: "other", cross: "gopher://gopher.example.org/0/x"},
			{path: "/to-smtp", kind: fetch.Refused},
			{path: "/to-crlf", kind: fetch.Refused},
			{path: "/no-location", want: "no location"},
		}
		for _, tt := range tests {
			c, redirected := redirectClient(t, tc.handler(t), tt.max)
			res, body, err := clientGet(t, c, &fetch.Request{URL: parse(t, srv.URL+tt.path)})
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
				if r == nil || r.URL.String() != tt.cross || !r.Hop {
					t.Errorf("%s: the other handler got %v, want a hop to %s", tt.path, r, tt.cross)
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
			c, _ := redirectClient(t, tc.handler(t), tt.max)
			res, _, err := clientGet(t, c, &fetch.Request{URL: parse(t, srv.URL+tt.path)})
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
		c, _ := redirectClient(t, tc.handler(t), 0)
		c.Policy.AllowPortOverride = true
		for _, tt := range []struct {
			url, want string
		}{
			{"http://joe:pw@" + host + "/other-host", ""},
			{"http://joe:pw@" + host + "/own-login", "Basic YW5uOnB3Mg=="},
			{"http://joe:pw@" + host + "/auth", "Basic am9lOnB3"},
			{"http://joe:pw@" + host + "/back-home", "Basic am9lOnB3"},
		} {
			authSeen.Store("")
			_, body, err := clientGet(t, c, &fetch.Request{URL: parse(t, tt.url)})
			if err != nil || string(body) != "auth" || authSeen.Load() != tt.want {
				t.Errorf("%s: %q, %v, Authorization %q sent; want %q", tt.url, body, err, authSeen.Load(), tt.want)
			}
		}
	})
}

// TestRedirectThroughClient follows an http → http redirect and an
// http → other-scheme redirect through a fetch.Client, as schemes.Register
// wires it, and lists each hop in Via.
func TestRedirectThroughClient(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
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
		h := tc.handler(t)
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
			if len(res.Via) != 1 || res.Via[0].URL.String() != srv.URL+path || res.Via[0].Status/100 != 3 {
				t.Errorf("%s: Via = %+v, want the one 3xx from %s", path, res.Via, srv.URL+path)
			}
		}
		if _, err := c.Fetch(ctx, srv.URL+"/p"); !errors.Is(err, fetch.Refused) {
			t.Errorf("redirect to gopher on port 25: %v, want kind Refused", err)
		}
	})
}

// TestRedirectHopsTakeSlots checks that a redirect to the host the fetch
// holds the only slot of goes on (the Client frees the slot before the
// hop takes one), and that a hop to a host whose only slot another fetch
// holds waits for it.
func TestRedirectHopsTakeSlots(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
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
		var cancelHop atomic.Pointer[context.CancelFunc]
		c.CheckRedirect = func(next *fetch.Request, via []*fetch.Resource) error {
			// The hop may wait 300 ms for its slot, counted from the hop.
			if cancel := cancelHop.Load(); cancel != nil {
				time.AfterFunc(300*time.Millisecond, *cancel)
			}
			return nil
		}
		c.Register("http", tc.handler(t))
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

		// Hold localhost's only slot: the hop to localhost must wait for it.
		held, err := c.Fetch(ctx, "http://localhost:"+port+"/held")
		if err != nil {
			t.Fatal(err)
		}
		hctx, hcancel := context.WithCancel(ctx)
		cancelHop.Store(&hcancel)
		_, err = fetchAll(hctx, "/to-other")
		cancelHop.Store(nil)
		hcancel()
		if !errors.Is(err, fetch.Canceled) || !strings.Contains(err.Error(), "slot") {
			t.Errorf("hop to a host whose slot is taken: %v; want it canceled waiting for the slot", err)
		}
		held.Body.Close()
		if b, err := fetchAll(ctx, "/to-other"); err != nil || b != "held" {
			t.Errorf("hop once the slot is free: %q, %v", b, err)
		}
	})
}

// TestRedirectCookies checks that a cookie a redirect sets is sent on the
// next hop, from the Client's Jar, and that a request's own Cookie field
// and the jar's go in one field.
func TestRedirectCookies(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		var got atomic.Value
		got.Store([]string(nil))
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/login":
				http.SetCookie(w, &http.Cookie{Name: "session", Value: "s1", Path: "/"})
				http.Redirect(w, r, "/inside", http.StatusFound)
			case "/inside":
				got.Store(r.Header.Values("Cookie"))
				if c, err := r.Cookie("session"); err != nil || c.Value != "s1" {
					http.Error(w, "no session", http.StatusForbidden)
					return
				}
				io.WriteString(w, "welcome")
			}
		})
		jar, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		c := &fetch.Client{Parser: url.Parser{Lenient: true}, Jar: jar}
		c.Register("http", tc.handler(t))
		_, body, err := clientGet(t, c, &fetch.Request{URL: parse(t, srv.URL+"/login")})
		if err != nil || string(body) != "welcome" {
			t.Fatalf("login through a redirect that sets a cookie: %q, %v", body, err)
		}
		_, _, err = clientGet(t, c, &fetch.Request{URL: parse(t, srv.URL+"/inside"), Header: http.Header{"Cookie": {"own=1"}}})
		if v := got.Load().([]string); err != nil || len(v) != 1 || v[0] != "own=1; session=s1" {
			t.Errorf("a request's own Cookie beside the jar's: %q, %v; want one field \"own=1; session=s1\"", v, err)
		}
		// Without a jar the redirect's cookie is lost, and the hop refused.
		c2, _ := redirectClient(t, tc.handler(t), 0)
		if _, _, err := clientGet(t, c2, &fetch.Request{URL: parse(t, srv.URL+"/login")}); !errors.Is(err, fetch.Auth) {
			t.Errorf("without a jar: %v, want the 403", err)
		}
	})
}
