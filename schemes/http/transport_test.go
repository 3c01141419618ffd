package http

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
)

// HTTP's connections are made through the Client's dial hook and
// resolver, under its policy, like every other scheme's.
func TestTransportDialsThroughClient(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		var insideHits atomic.Int32
		inside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			insideHits.Add(1)
			io.WriteString(w, "inside")
		}))
		defer inside.Close()
		public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/to-inside":
				http.Redirect(w, r, "http://inside.test/", http.StatusFound)
			case "/to-loopback":
				http.Redirect(w, r, inside.URL+"/", http.StatusFound)
			default:
				io.WriteString(w, "public")
			}
		}))
		defer public.Close()
		n := &fetchtest.Network{
			Hosts:  map[string]string{"example.test": "192.0.2.10", "inside.test": "10.0.0.7"},
			Routes: map[string]string{"192.0.2.10:80": public.Listener.Addr().String(), "10.0.0.7:80": inside.Listener.Addr().String()},
		}
		h := tc.handler(t)
		tests := []struct {
			url    string
			policy fetch.Policy
			want   string
			kind   fetch.Kind
		}{
			{url: "http://example.test/", want: "public"},
			{url: "http://inside.test/", want: "inside"},
			{url: "http://inside.test/", policy: fetch.Policy{DenyPrivate: true}, kind: fetch.Refused},
			{url: "http://example.test/to-inside", kind: fetch.Refused},   // public → private hop
			{url: "http://example.test/to-loopback", kind: fetch.Refused}, // and to a literal
			{url: "http://nowhere.test/", kind: fetch.Connect},
		}
		for _, tt := range tests {
			c := &fetch.Client{DialContext: n.DialContext, Resolver: n, Policy: tt.policy}
			c.Register("http", h)
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
					t.Errorf("%s: %q, %v (kind %v); want kind %v", tt.url, body, err, fetch.KindOf(err), tt.kind)
				}
			} else if err != nil || string(body) != tt.want {
				t.Errorf("%s: %q, %v; want %q", tt.url, body, err, tt.want)
			}
		}
		if got := insideHits.Load(); got != 1 {
			t.Errorf("the private server got %d requests, want 1 (the direct one): a refused request reached it", got)
		}
		if len(n.Dialed()) == 0 {
			t.Error("the dial hook was never called")
		}
	})
}
