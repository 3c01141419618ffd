package fetch

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/url"
)

// hangNet resolves every name to ::1 and 127.0.0.1; a dial to an address
// in hang waits for its context to end, and a dial to any other returns
// one end of a pipe at once. It records when each dial began.
type hangNet struct {
	hang map[string]bool
	mu   sync.Mutex
	log  []string
}

func (n *hangNet) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	all := []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}
	switch network {
	case "ip4":
		return all[:1], nil
	case "ip6":
		return all[1:], nil
	}
	return all, nil
}

func (n *hangNet) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	n.log = append(n.log, network+" "+addr)
	n.mu.Unlock()
	if n.hang[addr] {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	c, s := net.Pipe()
	go func() { // the server end: closed when the client's is
		s.Read(make([]byte, 1))
		s.Close()
	}()
	return c, nil
}

func (n *hangNet) dials() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.log)
}

func dialVia(t *testing.T, c *Client, raw string) (net.Conn, error) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Handler(u.Scheme); !ok {
		c.Register(u.Scheme, HandlerFunc(func(context.Context, *Request) (*Resource, error) { return nil, errors.New("unused") }))
	}
	_, cl, err := c.prepare("fetch", &Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	return cl.r.DialContext(context.Background(), "tcp", u.HostPort())
}

// RFC 8305: the IPv6 address is tried first; when it hangs, the IPv4
// address is tried 250 ms later, without waiting for the connect timeout,
// and wins.
func TestHappyEyeballsHangingIPv6(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &hangNet{hang: map[string]bool{"[::1]:70": true}}
		c := &Client{Resolver: n, DialContext: n.DialContext, ConnectTimeout: 30 * time.Second}
		start := time.Now()
		conn, err := dialVia(t, c, "gopher://dual.test/")
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		took := time.Since(start)
		if got := conn.RemoteAddr().String(); got != "pipe" {
			t.Errorf("connected to %s", got)
		}
		if d, _ := dialedOf(conn); d.addr != netip.MustParseAddr("127.0.0.1") {
			t.Errorf("connection remembers %v, want 127.0.0.1", d.addr)
		}
		conn.Close()
		if took != DefaultFallbackDelay {
			t.Errorf("connected after %v, want %v (the fallback delay)", took, DefaultFallbackDelay)
		}
		if want := []string{"tcp [::1]:70", "tcp 127.0.0.1:70"}; !slices.Equal(n.dials(), want) {
			t.Errorf("dials = %q, want %q", n.dials(), want)
		}
		synctest.Wait()
	})
}

// When IPv6 connects at once, IPv4 is never tried.
func TestHappyEyeballsIPv6First(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &hangNet{}
		c := &Client{Resolver: n, DialContext: n.DialContext}
		conn, err := dialVia(t, c, "gopher://dual.test/")
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
		if want := []string{"tcp [::1]:70"}; !slices.Equal(n.dials(), want) {
			t.Errorf("dials = %q, want %q", n.dials(), want)
		}
		synctest.Wait()
	})
}

// A negative FallbackDelay tries the addresses in turn: the hanging one
// costs its share of the connect timeout.
func TestHappyEyeballsOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &hangNet{hang: map[string]bool{"[::1]:70": true}}
		c := &Client{Resolver: n, DialContext: n.DialContext, ConnectTimeout: 10 * time.Second, FallbackDelay: -1}
		start := time.Now()
		conn, err := dialVia(t, c, "gopher://dual.test/")
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
		if took := time.Since(start); took != 5*time.Second {
			t.Errorf("connected after %v, want 5s (half the connect timeout)", took)
		}
		synctest.Wait()
	})
}

// When every address hangs, the dial ends at the connect timeout with
// Kind Timeout, every attempt cancelled.
func TestHappyEyeballsAllHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &hangNet{hang: map[string]bool{"[::1]:70": true, "127.0.0.1:70": true}}
		c := &Client{Resolver: n, DialContext: n.DialContext, ConnectTimeout: 3 * time.Second}
		start := time.Now()
		_, err := dialVia(t, c, "gopher://dual.test/")
		if !errors.Is(err, Timeout) {
			t.Errorf("err = %v, want Kind Timeout", err)
		}
		if took := time.Since(start); took != 3*time.Second {
			t.Errorf("gave up after %v, want 3s", took)
		}
		synctest.Wait()
	})
}

// The policy judges every address a name has before any is tried.
func TestHappyEyeballsPolicy(t *testing.T) {
	n := &hangNet{}
	c := &Client{Resolver: n, DialContext: n.DialContext, Policy: Policy{DenyPrivate: true}}
	if _, err := dialVia(t, c, "gopher://dual.test/"); !errors.Is(err, Refused) {
		t.Errorf("err = %v, want Kind Refused", err)
	}
	if d := n.dials(); len(d) != 0 {
		t.Errorf("dialed %q", d)
	}
}

func TestInterleave(t *testing.T) {
	a := netip.MustParseAddr
	in := []netip.Addr{a("192.0.2.1"), a("192.0.2.2"), a("192.0.2.3"), a("2001:db8::1"), a("2001:db8::2")}
	want := []netip.Addr{a("2001:db8::1"), a("192.0.2.1"), a("2001:db8::2"), a("192.0.2.2"), a("192.0.2.3")}
	if got := interleave(in); !slices.Equal(got, want) {
		t.Errorf("interleave = %v, want %v", got, want)
	}
}

// IPVersion keeps one family; Resolve answers for the resolver; ConnectTo
// puts another address in place of the URL's.
func TestDialOverrides(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    *Client
		url  string
		want []string
		kind Kind
	}{
		{name: "-4", c: &Client{IPVersion: 4}, url: "gopher://dual.test/", want: []string{"tcp4 127.0.0.1:70"}},
		{name: "-6", c: &Client{IPVersion: 6}, url: "gopher://dual.test/", want: []string{"tcp6 [::1]:70"}},
		{name: "-6 with an IPv4 literal", c: &Client{IPVersion: 6}, url: "gopher://127.0.0.1/", kind: Connect},
		{name: "resolve", c: &Client{Resolve: map[string][]netip.Addr{"dual.test:70": {netip.MustParseAddr("192.0.2.9")}}}, url: "gopher://dual.test/", want: []string{"tcp 192.0.2.9:70"}},
		{name: "resolve, other port", c: &Client{Resolve: map[string][]netip.Addr{"dual.test:71": {netip.MustParseAddr("192.0.2.9")}}}, url: "gopher://dual.test/", want: []string{"tcp [::1]:70"}},
		{name: "resolve, any port", c: &Client{Resolve: map[string][]netip.Addr{"dual.test:*": {netip.MustParseAddr("192.0.2.9")}}}, url: "gopher://dual.test:7070/", want: []string{"tcp 192.0.2.9:7070"}},
		{name: "resolve judged", c: &Client{Policy: Policy{DenyPrivate: true}, Resolve: map[string][]netip.Addr{"dual.test:70": {netip.MustParseAddr("10.0.0.1")}}}, url: "gopher://dual.test/", kind: Refused},
		{name: "connect-to", c: &Client{ConnectTo: map[string]string{"dual.test:70": "192.0.2.5:7070"}}, url: "gopher://dual.test/", want: []string{"tcp 192.0.2.5:7070"}},
		{name: "connect-to any host", c: &Client{ConnectTo: map[string]string{":70": "192.0.2.5:"}}, url: "gopher://other.test/", want: []string{"tcp 192.0.2.5:70"}},
		{name: "connect-to the port rule", c: &Client{ConnectTo: map[string]string{"dual.test:70": "192.0.2.5:25"}}, url: "gopher://dual.test/", kind: Refused},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := &hangNet{}
			c := tt.c
			c.Resolver, c.DialContext = n, n.DialContext
			conn, err := dialVia(t, c, tt.url)
			if tt.kind != 0 {
				if !errors.Is(err, tt.kind) {
					t.Fatalf("err = %v, want Kind %v", err, tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			conn.Close()
			if !slices.Equal(n.dials(), tt.want) {
				t.Errorf("dials = %q, want %q", n.dials(), tt.want)
			}
		})
	}
}
