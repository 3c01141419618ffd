package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/url"
)

// testNet is a network of the test's own: a resolver for its names, and a
// dial hook that reaches only the in-process servers it routes to, on
// 127.0.0.1. Nothing it is asked for leaves the machine.
type testNet struct {
	names  map[string][]netip.Addr // host name → addresses
	mu     sync.Mutex
	routes map[string]string // "ip:port" dialed → the listener's address
	dialed []string
}

func newTestNet() *testNet {
	return &testNet{names: map[string][]netip.Addr{}, routes: map[string]string{}}
}

func (n *testNet) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, ok := n.names[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (n *testNet) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	n.dialed = append(n.dialed, network+" "+addr)
	to, ok := n.routes[addr]
	n.mu.Unlock()
	if !ok {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("no route (test network)")}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, to)
}

func (n *testNet) dials() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.dialed...)
}

// serve starts a TCP server on 127.0.0.1 that writes greeting and closes,
// and routes ip:port of the test network to it.
func (n *testNet) serve(t *testing.T, ipPort, greeting string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, greeting)
			c.Close()
		}
	}()
	n.mu.Lock()
	n.routes[ipPort] = ln.Addr().String()
	n.mu.Unlock()
}

// dialer is a handler that dials what its request says (the URL's
// host:port, or addr when set) and returns what the server says.
func dialer(network, addr string) HandlerFunc {
	return func(ctx context.Context, req *Request) (*Resource, error) {
		a := addr
		if a == "" {
			a = req.URL.HostPort()
		}
		c, err := req.DialContext(ctx, network, a)
		if err != nil {
			return nil, err
		}
		return &Resource{Size: -1, Body: c}, nil
	}
}

func testClient(n *testNet, h Handler) *Client {
	c := &Client{DialContext: n.DialContext, Resolver: n}
	c.Register("http", h)
	return c
}

func get(t *testing.T, c *Client, req *Request) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Do(ctx, req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Every dial goes through Client.DialContext, with the name resolved by
// Client.Resolver and the policy applied before the hook is called.
func TestDialHook(t *testing.T) {
	n := newTestNet()
	n.names["example.test"] = []netip.Addr{netip.MustParseAddr("192.0.2.10")}
	n.names["inside.test"] = []netip.Addr{netip.MustParseAddr("10.1.2.3")}
	n.names["mixed.test"] = []netip.Addr{netip.MustParseAddr("192.0.2.11"), netip.MustParseAddr("127.0.0.1")}
	n.serve(t, "192.0.2.10:8080", "public")
	n.serve(t, "10.1.2.3:8080", "private")

	tests := []struct {
		name    string
		url     string
		addr    string // dialed instead of the URL's host:port
		policy  Policy
		want    string
		kind    Kind
		dialled bool // whether the hook must have been called
	}{
		{name: "public", url: "http://example.test:8080/", want: "public", dialled: true},
		{name: "private allowed by default", url: "http://inside.test:8080/", want: "private", dialled: true},
		{name: "DenyPrivate", url: "http://inside.test:8080/", policy: Policy{DenyPrivate: true}, kind: Refused},
		{name: "DenyPrivate, one of several", url: "http://mixed.test:8080/", policy: Policy{DenyPrivate: true}, kind: Refused},
		{name: "DenyPrivate, literal", url: "http://127.0.0.1:8080/", policy: Policy{DenyPrivate: true}, kind: Refused},
		{name: "DenyPrivate, metadata", url: "http://169.254.169.254/", policy: Policy{DenyPrivate: true}, kind: Refused},
		{name: "DenyPrivate, mapped", url: "http://example.test:8080/", addr: "[::ffff:127.0.0.1]:8080", policy: Policy{DenyPrivate: true}, kind: Refused},
		{name: "DenyPrivate, public passes", url: "http://example.test:8080/", policy: Policy{DenyPrivate: true}, want: "public", dialled: true},
		// An address given apart from the URL (a relay, a news server) is
		// held to the port policy too.
		{name: "other protocol's port", url: "http://example.test:8080/", addr: "example.test:25", kind: Refused},
		{name: "port override", url: "http://example.test:8080/", addr: "192.0.2.10:25", policy: Policy{AllowPortOverride: true}, kind: Connect, dialled: true},
		{name: "no such host", url: "http://nowhere.test/", kind: Connect},
		{name: "no route", url: "http://example.test:8081/", addr: "192.0.2.99:8080", kind: Connect, dialled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n.mu.Lock()
			n.dialed = nil
			n.mu.Unlock()
			c := testClient(n, dialer("tcp", tt.addr))
			c.Policy = tt.policy
			got, err := get(t, c, &Request{URL: mustParse(t, tt.url)})
			if tt.kind != 0 {
				if KindOf(err) != tt.kind {
					t.Errorf("got %q, %v (kind %v); want kind %v", got, err, KindOf(err), tt.kind)
				}
			} else if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
			if d := n.dials(); (len(d) > 0) != tt.dialled {
				t.Errorf("hook called for %q, want called: %v", d, tt.dialled)
			}
		})
	}
}

// A hop from a public address to a private one is refused even without
// DenyPrivate; a hop between public addresses, or a request made to a
// private address directly, is not.
func TestDialHopRule(t *testing.T) {
	n := newTestNet()
	n.names["example.test"] = []netip.Addr{netip.MustParseAddr("192.0.2.10")}
	n.names["other.test"] = []netip.Addr{netip.MustParseAddr("198.51.100.7")}
	n.names["inside.test"] = []netip.Addr{netip.MustParseAddr("192.168.1.1")}
	n.serve(t, "192.0.2.10:8080", "public")
	n.serve(t, "198.51.100.7:8080", "other")
	n.serve(t, "192.168.1.1:8080", "private")

	// The handler reads its server's answer, then, for /hop/X, redirects
	// to X, as an HTTP server would.
	c := testClient(n, HandlerFunc(func(ctx context.Context, req *Request) (*Resource, error) {
		conn, err := req.DialContext(ctx, "tcp", req.URL.HostPort())
		if err != nil {
			return nil, err
		}
		io.ReadAll(conn)
		conn.Close()
		if to, ok := strings.CutPrefix(req.URL.Path, "hop/"); ok {
			u, err := url.Parse("http://" + to + "/")
			if err != nil {
				return nil, err
			}
			return &Resource{Redirect: u, Body: NoBody}, nil
		}
		return &Resource{Size: 0, Body: NoBody}, nil
	}))
	tests := []struct {
		url  string
		kind Kind
	}{
		{"http://example.test:8080/hop/other.test:8080", 0},
		{"http://example.test:8080/hop/inside.test:8080", Refused},
		{"http://example.test:8080/hop/127.0.0.1:8080", Refused},
		{"http://inside.test:8080/", 0},
		{"http://inside.test:8080/hop/example.test:8080", 0},
	}
	for _, tt := range tests {
		_, err := get(t, c, &Request{URL: mustParse(t, tt.url)})
		if KindOf(err) != tt.kind {
			t.Errorf("%s: %v (kind %v), want kind %v", tt.url, err, KindOf(err), tt.kind)
		}
	}
}

// UDP (Prospero's transport) dials through the hook too.
func TestDialHookUDP(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	go func() {
		buf := make([]byte, 64)
		k, from, err := pc.ReadFrom(buf)
		if err == nil {
			pc.WriteTo([]byte(strings.ToUpper(string(buf[:k]))), from)
		}
	}()
	n := newTestNet()
	n.names["example.test"] = []netip.Addr{netip.MustParseAddr("192.0.2.10")}
	n.routes["192.0.2.10:1525"] = pc.LocalAddr().String()
	req := &Request{URL: mustParse(t, "http://example.test/")}
	req.dialer, req.resolver = n.DialContext, n
	c, err := req.DialContext(context.Background(), "udp", "example.test:1525")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("ping"))
	buf := make([]byte, 64)
	k, err := c.Read(buf)
	if err != nil || string(buf[:k]) != "PING" {
		t.Errorf("udp echo = %q, %v", buf[:k], err)
	}
	if d := n.dials(); len(d) != 1 || d[0] != "udp 192.0.2.10:1525" {
		t.Errorf("hook calls = %q", d)
	}
}

// A dial ended by the context is Canceled; one ended by the connect
// timeout is Timeout.
func TestDialCanceledAndTimeout(t *testing.T) {
	hang := func(ctx context.Context, network, addr string) (net.Conn, error) {
		<-ctx.Done()
		return nil, &net.OpError{Op: "dial", Net: network, Err: ctx.Err()}
	}
	ctx, cancel := context.WithCancel(context.Background())
	req := &Request{URL: mustParse(t, "http://192.0.2.1/"), dialer: hang}
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := req.DialContext(ctx, "tcp", "192.0.2.1:80")
	if KindOf(err) != Canceled || !errors.Is(err, Canceled) || !errors.Is(err, context.Canceled) {
		t.Errorf("canceled dial = %v (kind %v), want Canceled", err, KindOf(err))
	}
	req.ConnectTimeout = 50 * time.Millisecond
	_, err = req.DialContext(context.Background(), "tcp", "192.0.2.1:80")
	if KindOf(err) != Timeout {
		t.Errorf("dial past the connect timeout = %v (kind %v), want Timeout", err, KindOf(err))
	}
	if want := "timeout: connecting to 192.0.2.1:80: no answer in 50ms"; err == nil || err.Error() != want {
		t.Errorf("dial past the connect timeout says %q, want %q", err, want)
	}
}

func TestIsPrivate(t *testing.T) {
	for s, want := range map[string]bool{
		"127.0.0.1": true, "127.8.9.10": true, "::1": true,
		"10.0.0.1": true, "172.16.0.1": true, "172.31.255.255": true, "192.168.0.1": true,
		"fc00::1": true, "fd12:3456::1": true,
		"169.254.169.254": true, "169.254.0.1": true, "fe80::1": true,
		"0.0.0.0": true, "0.1.2.3": true, "::": true,
		"224.0.0.1": true, "239.1.1.1": true, "ff02::1": true,
		"::ffff:127.0.0.1": true, "::ffff:10.0.0.1": true, "::ffff:169.254.169.254": true,
		"192.0.2.1": false, "8.8.8.8": false, "172.32.0.1": false, "2001:db8::1": false,
		"::ffff:8.8.8.8": false,
		// IPv6 forms that carry an IPv4 address: judged by that address.
		"::127.0.0.1": true, "::10.1.2.3": true, "::8.8.8.8": false,
		"64:ff9b::7f00:1": true, "64:ff9b::a9fe:a9fe": true, "64:ff9b::808:808": false,
		"64:ff9b:1:7f00:0:100::": true, "64:ff9b:1:808:8:800::": false,
		"2002:7f00:1::1": true, "2002:c0a8:101::1": true, "2002:808:808::1": false,
		"2001:0:4136:e378:8000:63bf:80ff:fffe": true, "2001:0:4136:e378:8000:63bf:f7f7:f7f7": false,
		// Carrier-grade NAT, reserved, broadcast, site-local, discard-only.
		"100.64.0.1": true, "100.127.255.254": true, "100.128.0.1": false, "100.63.255.255": false,
		"192.0.0.8": true, "240.0.0.1": true, "255.255.255.255": true,
		"fec0::1": true, "100::1": true,
	} {
		if got := isPrivate(netip.MustParseAddr(s)); got != want {
			t.Errorf("isPrivate(%s) = %v, want %v", s, got, want)
		}
	}
}

// A pooled connection is judged again for each request that reuses it.
func TestCheckReuse(t *testing.T) {
	n := newTestNet()
	n.names["inside.test"] = []netip.Addr{netip.MustParseAddr("10.1.2.3")}
	n.names["example.test"] = []netip.Addr{netip.MustParseAddr("192.0.2.10")}
	n.serve(t, "10.1.2.3:8080", "private")
	n.serve(t, "192.0.2.10:8080", "public")
	c := &Client{DialContext: n.DialContext, Resolver: n}
	c.Register("http", staticHandler(""))
	_, cl, err := c.prepare("fetch", &Request{URL: mustParse(t, "http://inside.test:8080/")})
	if err != nil {
		t.Fatal(err)
	}
	first := &cl.r
	conn, err := first.DialContext(context.Background(), "tcp", "inside.test:8080")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := first.CheckReuse(conn); err != nil {
		t.Errorf("reuse by the request that dialed it: %v", err)
	}

	// A request that has reached a public address, and its hops, may not
	// reuse a connection to a private one.
	_, pcl, _ := c.prepare("fetch", &Request{URL: mustParse(t, "http://example.test:8080/")})
	pub := &pcl.r
	pc, err := pub.DialContext(context.Background(), "tcp", "example.test:8080")
	if err != nil {
		t.Fatal(err)
	}
	pc.Close()
	hop := pub.follow(mustParse(t, "http://inside.test:8080/"))
	if err := hop.CheckReuse(conn); !errors.Is(err, Refused) {
		t.Errorf("reuse by a hop from a public address: %v, want Refused", err)
	}
	deny := *first
	deny.policy.DenyPrivate = true
	if err := deny.CheckReuse(conn); !errors.Is(err, Refused) {
		t.Errorf("reuse under DenyPrivate: %v, want Refused", err)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if err := deny.CheckReuse(a); err != nil {
		t.Errorf("a connection the Request did not dial: %v, want nil", err)
	}
}
