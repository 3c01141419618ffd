package http

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// testNet resolves the test's own names and routes their addresses to
// in-process servers on 127.0.0.1: no traffic leaves the machine.
type testNet struct {
	names  map[string]string // host → IP
	routes map[string]string // "ip:port" → listener address
	mu     sync.Mutex
	dialed []string
}

func (n *testNet) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if ip, ok := n.names[host]; ok {
		return []netip.Addr{netip.MustParseAddr(ip)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (n *testNet) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	n.dialed = append(n.dialed, addr)
	to, ok := n.routes[addr]
	n.mu.Unlock()
	if !ok {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("no route (test network)")}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, to)
}

// HTTP's connections are made through the Client's dial hook and
// resolver, under its policy, like every other scheme's.
func TestTransportDialsThroughClient(t *testing.T) {
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
	n := &testNet{
		names:  map[string]string{"example.test": "192.0.2.10", "inside.test": "10.0.0.7"},
		routes: map[string]string{"192.0.2.10:80": public.Listener.Addr().String(), "10.0.0.7:80": inside.Listener.Addr().String()},
	}
	h := &Handler{}
	defer h.Close()
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
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.dialed) == 0 {
		t.Error("the dial hook was never called")
	}
}
