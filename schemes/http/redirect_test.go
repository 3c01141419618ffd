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
		{path: "/chain/1", h: &Handler{MaxRedirects: -1}, want: "<a href=\"/chain/0\">Found</a>.\n\n"},
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
