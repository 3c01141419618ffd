package ftp

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// Both of FTP's connections go through the Client's proxy: the control
// connection to the URL's host, and the passive data connection to the
// same host (by name, when the proxy resolved it) at the port the server
// gave.
func TestProxy(t *testing.T) {
	s := newFakeServer(t)
	s.files["/pub/f.txt"] = []byte("through the proxy\n")
	s.start()
	_, port, _ := net.SplitHostPort(s.addr())
	for _, tt := range []struct {
		kind, scheme, host string
		asked              func(asked []string) bool
	}{
		{"socks5", "socks5h", "ftp.test", func(a []string) bool {
			return len(a) == 2 && a[0] == "ftp.test:"+port && a[1] != a[0] && a[1][:len("ftp.test:")] == "ftp.test:"
		}},
		{"socks5", "socks5", "localhost", func(a []string) bool {
			return len(a) == 2 && a[0] == "127.0.0.1:"+port && a[1][:len("127.0.0.1:")] == "127.0.0.1:"
		}},
		{"http", "http", "ftp.test", func(a []string) bool {
			return len(a) == 2 && a[0] == "CONNECT ftp.test:"+port && a[1][:len("CONNECT ftp.test:")] == "CONNECT ftp.test:"
		}},
	} {
		t.Run(tt.scheme, func(t *testing.T) {
			px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: tt.kind, Hosts: map[string]string{"ftp.test": "127.0.0.1"}})
			pu := *px.URL
			pu.Scheme = tt.scheme
			h := &Handler{}
			defer h.Close()
			c := &fetch.Client{Proxy: fetch.ProxyAll(&pu, "")}
			c.Register("ftp", h)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := c.Fetch(ctx, "ftp://"+tt.host+":"+port+"/pub/f.txt")
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(res.Body)
			if cerr := res.Body.Close(); err == nil {
				err = cerr
			}
			if err != nil || string(b) != "through the proxy\n" {
				t.Fatalf("body = %q, %v", b, err)
			}
			if asked := px.Asked(); !tt.asked(asked) {
				t.Errorf("the proxy was asked for %q", asked)
			}
			if n := len(slices.Concat(s.commands()...)); n == 0 {
				t.Error("the server got no commands")
			}
		})
	}
}

// Active mode cannot go through a proxy: the server would connect to the
// proxy's side of the tunnel. It fails saying so, and sends no PORT.
func TestProxyActive(t *testing.T) {
	s := newFakeServer(t)
	s.files["/pub/f.txt"] = []byte("x")
	s.start()
	px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: "socks5"})
	h := &Handler{Active: true}
	defer h.Close()
	c := &fetch.Client{Proxy: fetch.ProxyAll(px.URL, "")}
	c.Register("ftp", h)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Fetch(ctx, "ftp://"+s.addr()+"/pub/f.txt")
	if err == nil {
		res.Body.Close()
	}
	if !errors.Is(err, fetch.Unsupported) {
		t.Errorf("active mode through a proxy: %v, want Kind Unsupported", err)
	}
	for _, cmd := range slices.Concat(s.commands()...) {
		if strings.HasPrefix(cmd, "PORT") || strings.HasPrefix(cmd, "EPRT") {
			t.Errorf("the server got %q", cmd)
		}
	}
}
