package schemes_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/schemes"
)

// With every scheme registered, a redirect that leaves its host goes
// through the Client, and a public server cannot send the Client to a
// private address, whether the private server was reached before or not.
func TestRegisteredHopRule(t *testing.T) {
	var insideHits atomic.Int32
	inside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		insideHits.Add(1)
		io.WriteString(w, "inside")
	}))
	defer inside.Close()
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-other":
			http.Redirect(w, r, "http://other.example.test/", http.StatusFound)
		case "/to-intranet":
			http.Redirect(w, r, "http://intranet.example.test/", http.StatusFound)
		default:
			io.WriteString(w, "public")
		}
	}))
	defer public.Close()
	n := &fetchtest.Network{
		Hosts: map[string]string{"www.example.test": "192.0.2.10", "other.example.test": "198.51.100.20", "intranet.example.test": "10.0.0.8"},
		Routes: map[string]string{
			"192.0.2.10:80":    public.Listener.Addr().String(),
			"198.51.100.20:80": public.Listener.Addr().String(),
			"10.0.0.8:80":      inside.Listener.Addr().String(),
		},
	}
	c := &fetch.Client{DialContext: n.DialContext, Resolver: n}
	schemes.Register(c)
	defer c.Close()
	for _, tt := range []struct {
		url  string
		want string
		kind fetch.Kind
	}{
		{url: "http://www.example.test/to-other", want: "public"},
		{url: "http://www.example.test/to-intranet", kind: fetch.Refused},
		{url: "http://intranet.example.test/", want: "inside"}, // directly: allowed without DenyPrivate
		{url: "http://www.example.test/to-intranet", kind: fetch.Refused},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := c.Fetch(ctx, tt.url)
		var body []byte
		if err == nil {
			body, err = io.ReadAll(res.Body)
			res.Body.Close()
		}
		cancel()
		if tt.kind != 0 {
			if fetch.KindOf(err) != tt.kind {
				t.Errorf("%s: %q, %v; want kind %v", tt.url, body, err, tt.kind)
			}
		} else if err != nil || string(body) != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.url, body, err, tt.want)
		}
	}
	if got := insideHits.Load(); got != 1 {
		t.Errorf("the private server got %d requests, want 1 (the direct one)", got)
	}
}
