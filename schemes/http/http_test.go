package http

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/url"
)

// newHandler returns a Handler whose idle connections close with the test.
func newHandler(t testing.TB) *Handler {
	h := &Handler{}
	t.Cleanup(func() { h.Close() })
	return h
}

// server starts an httptest server that closes with the test.
func server(t testing.TB, fn http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(fn)
	t.Cleanup(srv.Close)
	return srv
}

func parse(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.ParseLenient(s)
	if err != nil {
		t.Fatalf("ParseLenient(%q): %v", s, err)
	}
	return u
}

// get fetches s with h and reads the whole body.
func get(t testing.TB, h fetch.Handler, req *fetch.Request) (*fetch.Resource, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := h.Fetch(ctx, req)
	if err != nil {
		if res != nil {
			t.Errorf("Fetch(%s) returned a Resource with error %v", req.URL.Redacted(), err)
		}
		return nil, nil, err
	}
	if res.Body == nil {
		t.Fatalf("Fetch(%s): nil Body", req.URL.Redacted())
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

// capped returns h as a fetch.Client with PerHost conns makes its
// requests: each request lets h keep conns connections to a host (and the
// Client lets conns times h's Pipelining transfers run there).
func capped(h *Handler, conns int) fetch.Handler {
	c := &fetch.Client{PerHost: conns}
	c.Register("http", h)
	c.Register("https", h)
	return fetch.HandlerFunc(c.Do)
}

var bigBody = bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuv"), 8<<10) // 256 KiB

func TestConformance(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/big":
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Write(bigBody)
			case "/secret":
				if _, p, _ := r.BasicAuth(); p != "right" {
					http.Error(w, "no", http.StatusUnauthorized)
					return
				}
				io.WriteString(w, "ok")
			case "/stalled":
				w.Header().Set("Content-Length", "1000")
				io.WriteString(w, "the start")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			default:
				http.NotFound(w, r)
			}
		})
		host := strings.TrimPrefix(srv.URL, "http://")
		fetchtest.Run(t, tc.handler(t), fetchtest.Cases{
			Existing: srv.URL + "/big",
			Want:     bigBody,
			Missing:  srv.URL + "/missing",
			Secret:   "http://joe:s3cr3tpw@" + host + "/secret",
			Password: "s3cr3tpw",
			Parser:   url.Parser{Lenient: true},
			Stalled:  srv.URL + "/stalled",
		})
	})
}

func TestStatus(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			var code int
			fmt.Sscanf(r.URL.Path, "/%d", &code)
			if code == 0 {
				code = 200
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(code)
			fmt.Fprintf(w, "status %d\n", code)
		})
		tests := []struct {
			code int
			kind fetch.Kind // 0: success
		}{
			{200, 0}, {201, 0}, {203, 0},
			{300, 0}, // no Location: delivered as is
			{400, fetch.Other}, {401, fetch.Auth}, {403, fetch.Auth}, {404, fetch.NotFound},
			{405, fetch.Other}, {407, fetch.Auth}, {408, fetch.Timeout}, {410, fetch.NotFound},
			{416, fetch.Other}, {418, fetch.Other}, {429, fetch.Unavailable},
			{500, fetch.Other}, {502, fetch.Other}, {503, fetch.Unavailable}, {504, fetch.Timeout},
		}
		h := tc.handler(t)
		for _, tt := range tests {
			res, body, err := get(t, h, &fetch.Request{URL: parse(t, fmt.Sprintf("%s/%d", srv.URL, tt.code))})
			if tt.kind != 0 {
				if !errors.Is(err, tt.kind) {
					t.Errorf("status %d: error %v, want kind %v", tt.code, err, tt.kind)
				} else if want := fmt.Sprintf("HTTP/1.1 %d %s", tt.code, http.StatusText(tt.code)); !strings.Contains(err.Error(), want) {
					t.Errorf("status %d: error %q does not name the status line %q", tt.code, err, want)
				}
				var re *fetch.ReplyError
				if !errors.As(err, &re) || re.Code != tt.code || re.Text != http.StatusText(tt.code) {
					t.Errorf("status %d: ReplyError %+v, want code %d text %q", tt.code, re, tt.code, http.StatusText(tt.code))
				}
				// curl's --retry set: 408, 429, 500, 502, 503, 504.
				if want := strings.Contains(" 408 429 500 502 503 504 ", fmt.Sprintf(" %d ", tt.code)); fetch.Transient(err) != want {
					t.Errorf("status %d: Transient = %v, want %v", tt.code, !want, want)
				}
				continue
			}
			if err != nil {
				t.Errorf("status %d: %v", tt.code, err)
				continue
			}
			if want := fmt.Sprintf("status %d\n", tt.code); string(body) != want || res.MediaType != "text/plain; charset=utf-8" || res.Kind != fetch.ResourceFile {
				t.Errorf("status %d: body %q type %q kind %v, want %q text/plain; charset=utf-8 file", tt.code, body, res.MediaType, res.Kind, want)
			}
			if res.Status != tt.code || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
				t.Errorf("status %d: Status %d, Header %v", tt.code, res.Status, res.Header)
			}
			if res.Extra["http-status"] != fmt.Sprintf("%d %s", tt.code, http.StatusText(tt.code)) {
				t.Errorf("status %d: Extra = %v", tt.code, res.Extra)
			}
		}
	})
}

func TestNoContent(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		srv := server(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
		res, body, err := get(t, tc.handler(t), &fetch.Request{URL: parse(t, srv.URL+"/")})
		if err != nil || len(body) != 0 || res.Size != 0 {
			t.Fatalf("204: body %q, size %d, err %v; want empty, 0, nil", body, res.Size, err)
		}
	})
}

func TestRequestSent(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		type seen struct{ method, uri, ua, auth, host, accept string }
		got := make(chan seen, 1)
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			got <- seen{r.Method, r.RequestURI, r.UserAgent(), r.Header.Get("Authorization"), r.Host, r.Header.Get("Accept-Encoding")}
			w.Header().Set("Content-Length", "5")
			w.Header().Set("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")
			w.Header().Set("Content-Type", "text/html; charset=latin1")
			w.Header().Set("ETag", `"abc"`)
			if r.Method != http.MethodHead {
				io.WriteString(w, "hello")
			}
		})
		host := strings.TrimPrefix(srv.URL, "http://")
		tests := []struct {
			name string
			h    *Handler
			req  *fetch.Request
			want seen
		}{
			{"plain", &Handler{}, &fetch.Request{URL: parse(t, srv.URL+"/a%20b/c;p?q=1&r=%2F")},
				seen{"GET", "/a%20b/c;p?q=1&r=%2F", DefaultUserAgent, "", host, acceptEncoding}},
			{"empty path", &Handler{}, &fetch.Request{URL: parse(t, srv.URL)},
				seen{"GET", "/", DefaultUserAgent, "", host, acceptEncoding}},
			{"empty search", &Handler{}, &fetch.Request{URL: parse(t, srv.URL+"/x?")},
				seen{"GET", "/x?", DefaultUserAgent, "", host, acceptEncoding}},
			{"head", &Handler{}, &fetch.Request{URL: parse(t, srv.URL+"/h"), Head: true},
				seen{"HEAD", "/h", DefaultUserAgent, "", host, ""}},
			{"agent", &Handler{UserAgent: "probe/1"}, &fetch.Request{URL: parse(t, srv.URL+"/")},
				seen{"GET", "/", "probe/1", "", host, acceptEncoding}},
			{"url user", &Handler{}, &fetch.Request{URL: parse(t, "http://joe:pw@"+host+"/")},
				seen{"GET", "/", DefaultUserAgent, "Basic am9lOnB3", host, acceptEncoding}},
			{"request user", &Handler{}, &fetch.Request{URL: parse(t, srv.URL+"/"), User: url.UserPassword("ann", "x")},
				seen{"GET", "/", DefaultUserAgent, "Basic YW5uOng=", host, acceptEncoding}},
		}
		for _, tt := range tests {
			tc.set(t, tt.h)
			res, body, err := get(t, tt.h, tt.req)
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
				continue
			}
			if s := <-got; s != tt.want {
				t.Errorf("%s: server saw %+v, want %+v", tt.name, s, tt.want)
			}
			wantBody := "hello"
			if tt.req.Head {
				wantBody = ""
			}
			if string(body) != wantBody || res.Size != 5 || res.MediaType != "text/html; charset=latin1" || res.MediaTypeGuessed ||
				!res.ModTime.Equal(time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)) || res.Extra["etag"] != `"abc"` {
				t.Errorf("%s: body %q size %d type %q mod %v extra %v", tt.name, body, res.Size, res.MediaType, res.ModTime, res.Extra)
			}
		}
	})
}

func TestRefusedBeforeSending(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		var hits int
		srv := server(t, func(w http.ResponseWriter, r *http.Request) { hits++ })
		for _, p := range []string{"/a%0Db", "/a%0ab", "/a%00", "/a%09b", "/x?a%0D%0AHost:%20evil"} {
			_, _, err := get(t, tc.handler(t), &fetch.Request{URL: parse(t, srv.URL+p)})
			if !errors.Is(err, fetch.Refused) {
				t.Errorf("Fetch(%s): %v, want kind Refused", p, err)
			}
			if _, err := (&Handler{}).Plan(&fetch.Request{URL: parse(t, srv.URL+p)}); !errors.Is(err, fetch.Refused) {
				t.Errorf("Plan(%s): %v, want kind Refused", p, err)
			}
		}
		if hits != 0 {
			t.Errorf("the server was reached %d times", hits)
		}
	})
}

func TestPlan(t *testing.T) {
	noProxy := func(*http.Request) (*neturl.URL, error) { return nil, nil }
	tests := []struct {
		req  *fetch.Request
		h    *Handler
		want []string
	}{
		{&fetch.Request{URL: parse(t, "http://example.com/a%20b?x=1")}, &Handler{Proxy: noProxy}, []string{
			"GET /a%20b?x=1 HTTP/1.1", "Host: example.com", "User-Agent: " + DefaultUserAgent, "Accept-Encoding: " + acceptEncoding}},
		{&fetch.Request{URL: parse(t, "https://joe:secret@example.com:8443"), Head: true}, &Handler{Proxy: noProxy}, []string{
			"HEAD / HTTP/1.1", "Host: example.com:8443", "User-Agent: " + DefaultUserAgent, "Authorization: Basic ****"}},
		{&fetch.Request{URL: parse(t, "http://[::1]/f"), Offset: 100}, &Handler{Proxy: noProxy, UserAgent: "x"}, []string{
			"GET /f HTTP/1.1", "Host: [::1]", "User-Agent: x", "Range: bytes=100-"}},
		{&fetch.Request{URL: parse(t, "http://example.com/f"), Offset: 100}, &Handler{Proxy: noProxy, Raw: true}, []string{
			"GET /f HTTP/1.1", "Host: example.com", "User-Agent: " + DefaultUserAgent, "Range: bytes=100-", "Accept-Encoding: " + acceptEncoding}},
		{&fetch.Request{URL: parse(t, "http://example.com/f")}, &Handler{Proxy: fixedProxy("http://p:pw@proxy:3128")}, []string{
			"GET http://example.com/f HTTP/1.1", "Host: example.com", "User-Agent: " + DefaultUserAgent, "Accept-Encoding: " + acceptEncoding, "Proxy-Authorization: Basic ****"}},
		{&fetch.Request{URL: parse(t, "https://example.com/f")}, &Handler{Proxy: fixedProxy("http://proxy:3128")}, []string{
			"CONNECT example.com:443 HTTP/1.1", "Host: example.com:443", "GET /f HTTP/1.1", "Host: example.com", "User-Agent: " + DefaultUserAgent, "Accept-Encoding: " + acceptEncoding}},
	}
	for _, tt := range tests {
		got, err := tt.h.Plan(tt.req)
		if err != nil || strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("Plan(%s) = %q, %v; want %q", tt.req.URL.Redacted(), got, err, tt.want)
		}
		for _, l := range got {
			if strings.Contains(l, "secret") || strings.Contains(l, "pw") || strings.ContainsAny(l, "\r\n") {
				t.Errorf("Plan(%s) line %q shows a password or a line break", tt.req.URL.Redacted(), l)
			}
		}
	}
}

func TestTrace(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/from" {
				w.Header().Set("Location", "http://joe:topsecret@"+r.Host+"/to")
				w.WriteHeader(http.StatusFound)
				return
			}
			io.WriteString(w, "done")
		})
		host := strings.TrimPrefix(srv.URL, "http://")
		var tr strings.Builder
		c := &fetch.Client{Parser: url.Parser{Lenient: true}}
		c.Register("http", tc.handler(t))
		_, body, err := clientGet(t, c, &fetch.Request{URL: parse(t, "http://joe:topsecret@"+host+"/from"), Trace: fetch.NewTrace(&tr)})
		if err != nil || string(body) != "done" {
			t.Fatalf("Fetch: %q, %v", body, err)
		}
		s := tr.String()
		for _, want := range []string{
			"> GET /from HTTP/1.1\n", "> Authorization: Basic ****\n", "< HTTP/1.1 302 Found\n",
			"< Location: http://joe:****@" + host + "/to\n", "* redirect 1 of at most 10: to http://joe:****@" + host + "/to\n",
			"> GET /to HTTP/1.1\n", "< HTTP/1.1 200 OK\n",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("trace lacks %q:\n%s", want, s)
			}
		}
		if strings.Contains(s, "topsecret") || strings.Contains(s, "am9lOnRvcHNlY3JldA") {
			t.Errorf("trace shows the password:\n%s", s)
		}
	})
}

func TestConnectFailure(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		_, _, err = get(t, tc.handler(t), &fetch.Request{URL: parse(t, "http://"+addr+"/")})
		if !errors.Is(err, fetch.Connect) {
			t.Errorf("Fetch from a closed port: %v (kind %v), want Connect", err, fetch.KindOf(err))
		}
	})
}

// fixedProxy returns a Proxy function that names the proxy s for every
// request.
func fixedProxy(s string) func(*http.Request) (*neturl.URL, error) {
	u, err := neturl.Parse(s)
	return func(*http.Request) (*neturl.URL, error) { return u, err }
}

func TestProxy(t *testing.T) {
	got := make(chan string, 1)
	proxy := server(t, func(w http.ResponseWriter, r *http.Request) {
		got <- r.RequestURI + " " + r.Header.Get("Proxy-Authorization")
		io.WriteString(w, "via proxy")
	})
	h := &Handler{Proxy: fixedProxy("http://pu:pp@" + strings.TrimPrefix(proxy.URL, "http://"))}
	t.Cleanup(func() { h.Close() })
	_, body, err := get(t, h, &fetch.Request{URL: parse(t, "http://example.invalid/x?y")})
	if err != nil || string(body) != "via proxy" {
		t.Fatalf("through a proxy: %q, %v", body, err)
	}
	if s := <-got; s != "http://example.invalid/x?y Basic cHU6cHA=" {
		t.Errorf("proxy saw %q", s)
	}
}

func TestPromptForPassword(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != "joe" || p != "pw" {
				w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
				http.Error(w, "who?", http.StatusUnauthorized)
				return
			}
			io.WriteString(w, "welcome")
		})
		var asked []string
		prompt := func(answer string) func(string, bool) (string, error) {
			return func(label string, secret bool) (string, error) {
				asked = append(asked, label)
				if !secret {
					t.Errorf("prompt %q is not secret", label)
				}
				return answer, nil
			}
		}
		h := tc.handler(t)
		_, body, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+"/"), User: url.User("joe"), Prompt: prompt("pw")})
		if err != nil || string(body) != "welcome" || len(asked) != 1 {
			t.Errorf("-u joe with a prompt: %q, %v, asked %q", body, err, asked)
		}
		asked = nil
		_, _, err = get(t, h, &fetch.Request{URL: parse(t, srv.URL+"/"), User: url.User("joe"), Prompt: prompt("wrong")})
		if !errors.Is(err, fetch.Auth) || len(asked) != 1 {
			t.Errorf("wrong password: %v, asked %q; want Auth after one prompt", err, asked)
		}
		asked = nil
		_, _, err = get(t, h, &fetch.Request{URL: parse(t, srv.URL+"/"), User: url.UserPassword("joe", "bad"), Prompt: prompt("pw")})
		if !errors.Is(err, fetch.Auth) || len(asked) != 0 {
			t.Errorf("a given password: %v, asked %q; want Auth and no prompt", err, asked)
		}
	})
}

// TestPlanMatchesWire checks that Plan states the lines Fetch sends (in
// any order after the request line), as the -v trace records them.
func TestPlanMatchesWire(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			http.ServeContent(w, r, "f.txt", time.Time{}, strings.NewReader(strings.Repeat("x", 100)))
		})
		host := strings.TrimPrefix(srv.URL, "http://")
		noProxy := func(*http.Request) (*neturl.URL, error) { return nil, nil }
		for _, tt := range []struct {
			h   *Handler
			req *fetch.Request
		}{
			{&Handler{Proxy: noProxy}, &fetch.Request{URL: parse(t, srv.URL+"/a?b")}},
			{&Handler{Proxy: noProxy}, &fetch.Request{URL: parse(t, srv.URL+"/a"), Head: true}},
			{&Handler{Proxy: noProxy}, &fetch.Request{URL: parse(t, srv.URL+"/a"), Offset: 10}},
			{&Handler{Proxy: noProxy, Raw: true}, &fetch.Request{URL: parse(t, "http://u:p@"+host+"/a"), Offset: 10}},
			{&Handler{Proxy: noProxy, Raw: true, UserAgent: "ua"}, &fetch.Request{URL: parse(t, srv.URL+"/a"), Head: true, User: url.User("v")}},
		} {
			tc.set(t, tt.h)
			plan, err := tt.h.Plan(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			var tr strings.Builder
			tt.req.Trace = fetch.NewTrace(&tr)
			if _, _, err := get(t, tt.h, tt.req); err != nil {
				t.Fatal(err)
			}
			var sent []string
			for l := range strings.SplitSeq(tr.String(), "\n") {
				if s, ok := strings.CutPrefix(l, "> "); ok {
					sent = append(sent, s)
				}
			}
			if len(sent) == 0 || sent[0] != plan[0] {
				t.Errorf("%s: sent %q, planned %q", tt.req.URL.Redacted(), sent, plan)
				continue
			}
			a, b := slices.Clone(sent[1:]), slices.Clone(plan[1:])
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Errorf("%s: sent headers %q, planned %q", tt.req.URL.Redacted(), a, b)
			}
		}
	})
}

// TestMain fails the run when goroutines outlive the tests.
func TestMain(m *testing.M) { fetchtest.Main(m) }
