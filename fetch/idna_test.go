package fetch_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

func TestIDNAHost(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"bücher.test", "xn--bcher-kva.test"},
		{"BÜCHER.test", "xn--bcher-kva.test"}, // UTS #46 maps case
		{"faß.de", "xn--fa-hia.de"},           // IDNA 2008: ß is kept, not mapped to ss
		{"-bücher.test", ""},
		{"bü cher.test", ""},
	} {
		got, err := fetch.IDNAHost(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("IDNAHost(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("IDNAHost(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// hostsResolver answers for the names it holds.
type hostsResolver map[string]string

func (h hostsResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := h[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// A Client with a lenient Parser fetches an international name as its
// punycode: resolved, dialed and sent in Host so.
func TestClientIDNA(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Host)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	c := &fetch.Client{Parser: url.Parser{Lenient: true}, Resolver: hostsResolver{"xn--bcher-kva.test": "127.0.0.1"}}
	c.Register("http", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		conn, err := wire.Dial(ctx, req, "tcp", req.URL.HostPort())
		if err != nil {
			return nil, err
		}
		io.WriteString(conn, "GET / HTTP/1.0\r\nHost: "+req.URL.Host+"\r\n\r\n")
		return &fetch.Resource{Size: -1, Body: conn}, nil
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Fetch(ctx, "http://Bücher.test:"+port+"/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if want := "\r\n\r\nxn--bcher-kva.test"; len(b) < len(want) || string(b[len(b)-len(want):]) != want {
		t.Errorf("the server saw %q, want Host xn--bcher-kva.test", b)
	}
	if res.URL.Host != "xn--bcher-kva.test" {
		t.Errorf("Resource URL host = %q", res.URL.Host)
	}
	c.Parser = url.Parser{} // strict: RFC 1738 hosts are ASCII
	if _, err := c.Fetch(ctx, "http://bücher.test/"); err == nil {
		t.Error("a strict Client took an international name")
	}
}
