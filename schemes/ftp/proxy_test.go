package ftp

import (
	"context"
	"io"
	"net"
	"slices"
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
