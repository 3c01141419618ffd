package http

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// RFC 7616 §3.9.1's example, in MD5 and SHA-256.
func TestDigestAnswerRFC7616(t *testing.T) {
	for _, tt := range []struct{ alg, want string }{
		{"MD5", "8ca523f5e9506fed4657c9700eebdbec"},
		{"SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"},
	} {
		ch := &digestChallenge{
			realm: "http-auth@example.org", nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
			opaque: "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", algorithm: tt.alg, qop: "auth",
		}
		got := ch.answer("Mufasa", "Circle of Life", "GET", "/dir/index.html", 1, "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
		if !strings.Contains(got, `response="`+tt.want+`"`) || !strings.Contains(got, "nc=00000001") || !strings.HasPrefix(got, `Digest username="Mufasa", realm="http-auth@example.org"`) {
			t.Errorf("%s answer = %s, want response %s", tt.alg, got, tt.want)
		}
	}
}

func TestParseChallenges(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []challenge
	}{
		{`Basic realm="a b"`, []challenge{{"Basic", map[string]string{"realm": "a b"}}}},
		{`Digest realm="r", qop="auth,auth-int", nonce="n\"x", Basic realm="b"`, []challenge{
			{"Digest", map[string]string{"realm": "r", "qop": "auth,auth-int", "nonce": `n"x`}},
			{"Basic", map[string]string{"realm": "b"}},
		}},
		{`Bearer, Digest algorithm=SHA-256 , nonce=abc`, []challenge{
			{"Bearer", map[string]string{}},
			{"Digest", map[string]string{"algorithm": "SHA-256", "nonce": "abc"}},
		}},
		{`Negotiate abc123==`, []challenge{{"Negotiate", map[string]string{"": "abc123=="}}}},
	} {
		if got := parseChallenges(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseChallenges(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// The strongest Digest challenge fetch knows is chosen; one with only an
// unknown algorithm or qop is not.
func TestBestDigest(t *testing.T) {
	ch := bestDigest([]string{`Digest realm="r", nonce="1", algorithm=MD5, qop="auth"`, `Digest realm="r", nonce="2", algorithm=SHA-256, qop="auth"`})
	if ch == nil || ch.nonce != "2" {
		t.Errorf("best = %+v, want the SHA-256 one", ch)
	}
	if ch := bestDigest([]string{`Digest realm="r", nonce="1", algorithm=SHA-3`, `Digest realm="r", nonce="2", qop="auth-conf"`, `Basic realm="r"`}); ch != nil {
		t.Errorf("best = %+v, want none", ch)
	}
}

// digestServer requires Digest SHA-256 (qop auth) from user "alice",
// password "wonder land", checking the answer by RFC 7616's formulas, and
// counts its requests.
func digestServer(t *testing.T, tls bool) (base string, hits *atomic.Int32, trust *fetch.Client) {
	hits = new(atomic.Int32)
	const realm, nonce = "test@fetch", "nonce-1"
	H := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	fn := func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		a := r.Header.Get("Authorization")
		if strings.HasPrefix(a, "Digest ") {
			p := parseChallenges(a)[0].params
			ha1 := H("alice:" + realm + ":wonder land")
			ha2 := H(r.Method + ":" + p["uri"])
			want := H(ha1 + ":" + nonce + ":" + p["nc"] + ":" + p["cnonce"] + ":auth:" + ha2)
			if p["response"] == want && p["uri"] == r.URL.RequestURI() && p["username"] == "alice" && p["opaque"] == "op" {
				fmt.Fprintf(w, "hello alice, nc=%s", p["nc"])
				return
			}
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="`+realm+`", Digest realm="`+realm+`", qop="auth", algorithm=SHA-256, nonce="`+nonce+`", opaque="op"`)
		w.WriteHeader(http.StatusUnauthorized)
	}
	c := &fetch.Client{}
	if tls {
		srv, tc := tlsServer(t, fn)
		c.TLS = tc
		return srv.URL, hits, c
	}
	srv := httptest.NewServer(http.HandlerFunc(fn))
	t.Cleanup(srv.Close)
	return srv.URL, hits, c
}

// With Digest, the first request goes without credentials, its 401's
// challenge is answered, and later requests answer at once with the next
// nonce count: on the h1 transport (http) and on net/http's (https).
func TestDigest(t *testing.T) {
	for _, secure := range []bool{false, true} {
		base, hits, c := digestServer(t, secure)
		h := &Handler{Digest: true}
		defer h.Close()
		c.Register("http", h)
		c.Register("https", h)
		c.User = url.UserPassword("alice", "wonder land")
		for i, want := range []struct {
			body string
			hits int32
		}{{"hello alice, nc=00000001", 2}, {"hello alice, nc=00000002", 3}} {
			body, err := getVia(c, base+"/dir/x?q=1")
			if err != nil || body != want.body || hits.Load() != want.hits {
				t.Errorf("%s fetch %d: %q, %v after %d requests; want %q after %d", base, i+1, body, err, hits.Load(), want.body, want.hits)
			}
		}
		c.User = url.UserPassword("alice", "wrong")
		if _, err := getVia(c, base+"/dir/x"); !isStatus(err, http.StatusUnauthorized) {
			t.Errorf("%s with a wrong password: %v, want a 401", base, err)
		}
	}
}

// Without Digest, the same credentials go as Basic and are refused.
func TestDigestNotAsked(t *testing.T) {
	base, hits, c := digestServer(t, false)
	h := &Handler{}
	defer h.Close()
	c.Register("http", h)
	c.User = url.UserPassword("alice", "wonder land")
	if _, err := getVia(c, base+"/"); !isStatus(err, http.StatusUnauthorized) || hits.Load() != 1 {
		t.Errorf("Basic against a Digest server: %v after %d requests; want a 401 after 1", err, hits.Load())
	}
}

// The bearer token goes with the request the user made and with a
// redirect's hop to the same server, not to another host; credentials
// given win over it.
func TestBearerToken(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "other sees "+r.Header.Get("Authorization"))
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/", http.StatusFound)
			return
		}
		io.WriteString(w, "sees "+r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	h := &Handler{BearerToken: "tok-123"}
	defer h.Close()
	c := &fetch.Client{}
	c.Register("http", h)
	for _, tt := range []struct{ url, want string }{
		{srv.URL + "/", "sees Bearer tok-123"},
		{srv.URL + "/away", "other sees "},
	} {
		if body, err := getVia(c, tt.url); err != nil || body != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.url, body, err, tt.want)
		}
	}
	c.User = url.UserPassword("u", "p")
	if body, err := getVia(c, srv.URL+"/"); err != nil || body != "sees Basic dTpw" {
		t.Errorf("with credentials: %q, %v; want Basic", body, err)
	}
}

func getVia(c *fetch.Client, u string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Fetch(ctx, u)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}
