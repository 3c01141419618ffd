package fetch_test

import (
	"context"
	"errors"
	"io"
	"net"
	neturl "net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

func TestParseProxy(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		kind     fetch.Kind
	}{
		{in: "127.0.0.1:3128", want: "http://127.0.0.1:3128"},
		{in: "proxy.test", want: "http://proxy.test:1080"},
		{in: "https://proxy.test", want: "https://proxy.test:443"},
		{in: "SOCKS5H://u:p%40ss@proxy.test:9050", want: "socks5h://u:p%40ss@proxy.test:9050"},
		{in: "socks5://[::1]", want: "socks5://[::1]:1080"},
		{in: "ftp://proxy.test:21", kind: fetch.Usage},
		{in: "http://proxy.test/path", kind: fetch.Usage},
		{in: "http://:8080", kind: fetch.Usage},
		{in: "http://proxy.test:99999", kind: fetch.Usage},
	} {
		p, err := fetch.ParseProxy(tt.in)
		if tt.kind != 0 {
			if !errors.Is(err, tt.kind) {
				t.Errorf("ParseProxy(%q) = %v, %v; want Kind %v", tt.in, p, err, tt.kind)
			}
			continue
		}
		if err != nil || p.String() != tt.want {
			t.Errorf("ParseProxy(%q) = %v, %v; want %s", tt.in, p, err, tt.want)
		}
	}
}

// A proxy string that does not parse is named in the error without the
// password it may hold.
func TestParseProxyRedacts(t *testing.T) {
	_, err := fetch.ParseProxy("http://user:s3cret@proxy.test:%zz")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("ParseProxy error = %v; want an error without the password", err)
	}
}

func TestNoProxy(t *testing.T) {
	np := fetch.ParseNoProxy("example.test, .other.test 10.0.0.0/8,192.0.2.7,[::1]")
	for _, tt := range []struct {
		host string
		want bool
	}{
		{"example.test", true},
		{"www.example.test", true},
		{"notexample.test", false},
		{"other.test", true},
		{"a.b.other.test", true},
		{"10.1.2.3", true},
		{"11.1.2.3", false},
		{"192.0.2.7", true},
		{"192.0.2.8", false},
		{"[::1]", true},
		{"::1", true},
		{"EXAMPLE.TEST.", true},
	} {
		if got := np.Match(tt.host); got != tt.want {
			t.Errorf("Match(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
	if !fetch.ParseNoProxy("*").Match("anything.test") {
		t.Error(`"*" does not match every host`)
	}
}

func TestProxyFromEnvironment(t *testing.T) {
	env := map[string]string{
		"http_proxy":   "http://web.proxy.test:3128",
		"FTP_PROXY":    "socks5://ftp.proxy.test",
		"ALL_PROXY":    "socks5h://all.proxy.test:9050",
		"no_proxy":     "direct.test",
		"GOPHER_PROXY": "",
	}
	choose := fetch.ProxyFromEnvironment(func(k string) string { return env[k] })
	for _, tt := range []struct {
		url, want string
	}{
		{"http://www.test/", "http://web.proxy.test:3128"},
		{"ftp://ftp.test/f", "socks5://ftp.proxy.test:1080"},
		{"gopher://gopher.test/", "socks5h://all.proxy.test:9050"},
		{"nntp://news.test/g", "socks5h://all.proxy.test:9050"},
		{"http://www.direct.test/", ""},
		{"http://localhost:8080/", ""},
		{"http://127.0.0.1/", ""},
	} {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		p, err := choose(u)
		got := ""
		if p != nil {
			got = p.String()
		}
		if err != nil || got != tt.want {
			t.Errorf("proxy for %s = %q, %v; want %q", tt.url, got, err, tt.want)
		}
	}
}

// greeter starts a server that speaks first, as FTP, NNTP and telnet
// servers do: the greeting reaches the client in the same read as a
// proxy's reply can.
func greeter(t *testing.T, greeting string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, greeting)
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// greetingClient is a Client whose gopher handler dials the URL's host
// and returns what the server says.
func greetingClient(proxy fetch.ProxyFunc) *fetch.Client {
	c := &fetch.Client{Proxy: proxy}
	c.Register("gopher", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		conn, err := wire.Dial(ctx, req, "tcp", req.URL.HostPort())
		if err != nil {
			return nil, err
		}
		return &fetch.Resource{Size: -1, Body: conn}, nil
	}))
	return c
}

func fetchAll(c *fetch.Client, u string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Fetch(ctx, u)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

// Every kind of proxy carries a scheme's TCP connection; the proxy is
// asked for the target by name (socks5h, http) or by the address fetch
// resolved (socks5).
func TestProxyTunnels(t *testing.T) {
	addr := greeter(t, "hello from behind\r\n")
	_, port, _ := net.SplitHostPort(addr)
	hosts := map[string]string{"origin.test": "127.0.0.1"}
	for _, tt := range []struct {
		name      string
		cfg       fetchtest.ProxyConfig
		scheme    string // of the proxy URL given to the Client
		wrongPass bool
		url       string
		asked     string
		kind      fetch.Kind
	}{
		{name: "socks5h", cfg: fetchtest.ProxyConfig{Kind: "socks5"}, scheme: "socks5h", url: "gopher://origin.test:" + port + "/", asked: "origin.test:" + port},
		{name: "socks5 resolves here", cfg: fetchtest.ProxyConfig{Kind: "socks5"}, scheme: "socks5", url: "gopher://localhost:" + port + "/", asked: "127.0.0.1:" + port},
		{name: "socks5 login", cfg: fetchtest.ProxyConfig{Kind: "socks5", User: "u", Password: "p w"}, scheme: "socks5h", url: "gopher://origin.test:" + port + "/", asked: "origin.test:" + port},
		{name: "socks5 bad login", cfg: fetchtest.ProxyConfig{Kind: "socks5", User: "u", Password: "p"}, scheme: "socks5h", wrongPass: true, url: "gopher://origin.test:" + port + "/", kind: fetch.Auth},
		{name: "connect", cfg: fetchtest.ProxyConfig{Kind: "http"}, scheme: "http", url: "gopher://origin.test:" + port + "/", asked: "CONNECT origin.test:" + port},
		{name: "connect login", cfg: fetchtest.ProxyConfig{Kind: "http", User: "u", Password: "p:w"}, scheme: "http", url: "gopher://origin.test:" + port + "/", asked: "CONNECT origin.test:" + port},
		{name: "connect 407", cfg: fetchtest.ProxyConfig{Kind: "http", User: "u", Password: "p"}, scheme: "http", wrongPass: true, url: "gopher://origin.test:" + port + "/", kind: fetch.Auth},
		{name: "connect refused by the proxy", cfg: fetchtest.ProxyConfig{Kind: "http"}, scheme: "http", url: "gopher://unknown.test:" + port + "/", kind: fetch.Connect},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Hosts = hosts
			px := fetchtest.NewProxy(t, tt.cfg)
			pu := *px.URL
			pu.Scheme = tt.scheme
			if tt.wrongPass {
				pu.User = neturl.UserPassword("u", "wrong")
			}
			c := greetingClient(fetch.ProxyAll(&pu, ""))
			got, err := fetchAll(c, tt.url)
			if tt.kind != 0 {
				if !errors.Is(err, tt.kind) {
					t.Fatalf("fetch %s = %q, %v; want Kind %v", tt.url, got, err, tt.kind)
				}
				if strings.Contains(err.Error(), "wrong") {
					t.Errorf("error %q shows the proxy password", err)
				}
				return
			}
			if err != nil || got != "hello from behind\r\n" {
				t.Fatalf("fetch %s = %q, %v", tt.url, got, err)
			}
			if asked := px.Asked(); !slices.Equal(asked, []string{tt.asked}) {
				t.Errorf("the proxy was asked for %q, want %q", asked, tt.asked)
			}
		})
	}
}

// Request.Through dials through the proxy it is given, whatever the
// Client's Proxy says: through it when the Client has none, direct for a
// nil proxy when the Client has one.
func TestRequestThrough(t *testing.T) {
	addr := greeter(t, "hi\r\n")
	px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: "http"})
	for _, tt := range []struct {
		name    string
		client  fetch.ProxyFunc
		through *neturl.URL
		asked   int
	}{
		{"through a proxy the Client has not", nil, px.URL, 1},
		{"direct past the Client's proxy", fetch.ProxyAll(px.URL, ""), nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := len(px.Asked())
			c := &fetch.Client{Proxy: tt.client}
			c.Register("gopher", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
				conn, err := wire.Dial(ctx, req.Through(tt.through), "tcp", req.URL.HostPort())
				if err != nil {
					return nil, err
				}
				return &fetch.Resource{Size: -1, Body: conn}, nil
			}))
			if got, err := fetchAll(c, "gopher://"+addr+"/"); err != nil || got != "hi\r\n" {
				t.Fatalf("fetch = %q, %v", got, err)
			}
			if n := len(px.Asked()) - before; n != tt.asked {
				t.Errorf("the proxy was asked for %d tunnels, want %d", n, tt.asked)
			}
		})
	}
}

// The trace shows the CONNECT request, its credentials masked, and the
// proxy's reply.
func TestProxyConnectTrace(t *testing.T) {
	addr := greeter(t, "hi\r\n")
	px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: "http", User: "u", Password: "s3cret"})
	c := greetingClient(fetch.ProxyAll(px.URL, ""))
	var trace strings.Builder
	c.Trace = fetch.NewTrace(&trace)
	if got, err := fetchAll(c, "gopher://"+addr+"/"); err != nil || got != "hi\r\n" {
		t.Fatalf("fetch = %q, %v", got, err)
	}
	for _, want := range []string{"> CONNECT " + addr + " HTTP/1.1\n", "> Host: " + addr + "\n", "> Proxy-Authorization: Basic ****\n", "< HTTP/1.1 200 Connection established\n"} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("the trace lacks %q:\n%s", want, trace.String())
		}
	}
	if strings.Contains(trace.String(), "s3cret") || strings.Contains(trace.String(), "dTpzM2NyZXQ") {
		t.Errorf("the trace shows the proxy's password:\n%s", trace.String())
	}
}

// The policy judges the proxy's own address, and the target's where fetch
// can see it; NoProxy hosts are dialed directly.
func TestProxyPolicy(t *testing.T) {
	addr := greeter(t, "hi")
	_, port, _ := net.SplitHostPort(addr)
	px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: "socks5", Hosts: map[string]string{"origin.test": "127.0.0.1"}})

	c := greetingClient(fetch.ProxyAll(px.URL, ""))
	c.Policy.DenyPrivate = true
	if _, err := fetchAll(c, "gopher://origin.test:"+port+"/"); !errors.Is(err, fetch.Refused) {
		t.Errorf("through a loopback proxy with DenyPrivate: %v, want Kind Refused", err)
	}
	if asked := px.Asked(); len(asked) != 0 {
		t.Errorf("the refused proxy was asked for %q", asked)
	}

	c = greetingClient(fetch.ProxyAll(px.URL, "127.0.0.1"))
	if got, err := fetchAll(c, "gopher://127.0.0.1:"+port+"/"); err != nil || got != "hi" {
		t.Errorf("a NoProxy host: %q, %v", got, err)
	}
	if asked := px.Asked(); len(asked) != 0 {
		t.Errorf("the proxy was asked for %q, though the host is in NoProxy", asked)
	}
}

// A UDP dial cannot go through a proxy, and says so rather than going
// around it.
func TestProxyRefusesUDP(t *testing.T) {
	px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: "socks5"})
	c := &fetch.Client{Proxy: fetch.ProxyAll(px.URL, "")}
	c.Register("prospero", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		conn, err := wire.Dial(ctx, req, "udp", "127.0.0.1:1525")
		if err != nil {
			return nil, err
		}
		conn.Close()
		return &fetch.Resource{Body: fetch.NoBody}, nil
	}))
	if _, err := fetchAll(c, "prospero://127.0.0.1/x"); !errors.Is(err, fetch.Unsupported) {
		t.Errorf("UDP through a proxy: %v, want Kind Unsupported", err)
	}
}

// Under CGI, HTTP_PROXY is a request's Proxy header ("httpoxy"), and not
// taken for a proxy; http_proxy still is.
func TestProxyFromEnvironmentCGI(t *testing.T) {
	u, _ := url.Parse("http://www.test/")
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HTTP_PROXY": "evil.test:80", "REQUEST_METHOD": "GET"}, ""},
		{map[string]string{"http_proxy": "good.test:80", "REQUEST_METHOD": "GET"}, "http://good.test:80"},
		{map[string]string{"HTTP_PROXY": "good.test:80"}, "http://good.test:80"},
	} {
		p, err := fetch.ProxyFromEnvironment(func(k string) string { return tt.env[k] })(u)
		got := ""
		if p != nil {
			got = p.String()
		}
		if err != nil || got != tt.want {
			t.Errorf("with %v: proxy %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
}
