package schemes_test

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/schemes"
)

// Every TCP scheme's connection goes through the Client's proxy: the
// proxy is asked for each URL's host and port, whatever the exchange
// then makes of the server (here one that closes at once).
func TestEverySchemeThroughProxy(t *testing.T) {
	addr := fetchtest.Serve(t, func(c net.Conn) {})
	_, port, _ := net.SplitHostPort(addr)
	for _, kind := range []string{"socks5", "http"} {
		px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: kind, Hosts: map[string]string{"origin.test": "127.0.0.1"}})
		c := &fetch.Client{Proxy: fetch.ProxyAll(px.URL, ""), ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
		schemes.Register(c)
		for _, u := range []string{
			"ftp://origin.test:" + port + "/f",
			"gopher://origin.test:" + port + "/0x",
			"nntp://origin.test:" + port + "/g/1",
			"wais://origin.test:" + port + "/db?x",
			"telnet://origin.test:" + port + "/",
			"http://origin.test:" + port + "/",
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			res, err := c.Fetch(ctx, u)
			if err == nil {
				res.Body.Close()
			}
			cancel()
			want := "origin.test:" + port
			if kind == "http" {
				want = "CONNECT " + want
				if u[:5] == "http:" {
					want = "GET " + u
				}
			}
			if !slices.Contains(px.Asked(), want) {
				t.Errorf("%s through %s: the proxy was asked for %q, not %q (%v)", u, kind, px.Asked(), want, err)
			}
		}
		c.Close()
	}
}
