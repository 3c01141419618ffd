package http

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// The Client's proxy carries http and https: an http URL goes to an HTTP
// proxy as an absolute-form request, an https URL through a CONNECT
// tunnel, and both through a SOCKS5 tunnel. Only an http URL's
// absolute-form request to an HTTP proxy goes over net/http (its heads
// rendered): the tunnels are the own client's, which keeps the heads.
func TestClientProxy(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "plain "+r.Host)
	}))
	t.Cleanup(plain.Close)
	secure, trust := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "secure "+r.Host)
	})
	_, pport, _ := net.SplitHostPort(plain.Listener.Addr().String())
	_, sport, _ := net.SplitHostPort(secure.Listener.Addr().String())
	hosts := map[string]string{"origin.test": "127.0.0.1"}
	for _, tt := range []struct {
		kind, url, want, asked string
	}{
		{"http", "http://origin.test:" + pport + "/x", "plain origin.test:" + pport, "GET http://origin.test:" + pport + "/x"},
		{"http", "https://127.0.0.1:" + sport + "/x", "secure 127.0.0.1:" + sport, "CONNECT 127.0.0.1:" + sport},
		{"socks5", "http://origin.test:" + pport + "/x", "plain origin.test:" + pport, "origin.test:" + pport},
		{"socks5", "https://127.0.0.1:" + sport + "/x", "secure 127.0.0.1:" + sport, "127.0.0.1:" + sport},
	} {
		t.Run(tt.kind+" "+tt.url, func(t *testing.T) {
			px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: tt.kind, Hosts: hosts})
			h := &Handler{}
			defer h.Close()
			c := &fetch.Client{Proxy: fetch.ProxyAll(px.URL, ""), TLS: trust}
			c.Register("http", h)
			c.Register("https", h)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := c.Do(ctx, &fetch.Request{URL: parse(t, tt.url), Capture: true})
			if err != nil {
				t.Fatal(err)
			}
			wantRendered := tt.kind == "http" && res.URL.Scheme == "http"
			if res.Capture == nil || res.Capture.Rendered != wantRendered {
				t.Errorf("Capture %+v, want Rendered %v", res.Capture, wantRendered)
			}
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || string(b) != tt.want {
				t.Fatalf("body = %q, %v; want %q", b, err, tt.want)
			}
			if asked := px.Asked(); !slices.Equal(asked, []string{tt.asked}) {
				t.Errorf("the proxy was asked for %q, want %q", asked, tt.asked)
			}
			if lines, err := c.Plan(&fetch.Request{URL: res.URL}); err != nil || len(lines) == 0 {
				t.Errorf("Plan = %q, %v", lines, err)
			} else if tt.kind == "http" && lines[0] != tt.asked+" HTTP/1.1" && lines[0] != "GET http://origin.test:"+pport+"/x HTTP/1.1" {
				t.Errorf("Plan's first line = %q", lines[0])
			}
		})
	}
}
