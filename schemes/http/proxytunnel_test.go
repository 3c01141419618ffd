package http

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// wireTLS is a TLS server on 127.0.0.1 that answers each request with
// reply, and keeps the bytes of each request head it read and of each
// reply it wrote.
type wireTLS struct {
	ln    net.Listener
	mu    sync.Mutex
	got   [][]byte
	sent  [][]byte
	conns int
	wg    sync.WaitGroup
	// certs are the server's certificates, which a test's https proxy
	// shows too (see tlsFront).
	certs []tls.Certificate
}

func newWireTLS(t *testing.T, reply string) (*wireTLS, *tls.Config) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS() // for its certificate
	srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &wireTLS{ln: tls.NewListener(ln, &tls.Config{Certificates: srv.TLS.Certificates}), certs: srv.TLS.Certificates}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			c, err := w.ln.Accept()
			if err != nil {
				return
			}
			w.mu.Lock()
			w.conns++
			w.mu.Unlock()
			w.wg.Add(1)
			go func() {
				defer w.wg.Done()
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					var head []byte
					for !bytes.HasSuffix(head, []byte("\r\n\r\n")) {
						b, err := br.ReadByte()
						if err != nil {
							return
						}
						head = append(head, b)
					}
					w.mu.Lock()
					w.got = append(w.got, head)
					w.sent = append(w.sent, []byte(reply))
					w.mu.Unlock()
					if _, err := io.WriteString(c, reply); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { w.ln.Close(); w.wg.Wait() })
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	return w, &tls.Config{RootCAs: pool}
}

// tlsFront puts TLS under certs in front of the proxy p: an https proxy,
// whose URL it returns.
func tlsFront(t *testing.T, p *neturl.URL, certs []tls.Certificate) *neturl.URL {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: certs})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				b, err := net.Dial("tcp", p.Host)
				if err != nil {
					return
				}
				defer b.Close()
				wg.Add(1)
				go func() {
					defer wg.Done()
					io.Copy(b, c)
					b.(*net.TCPConn).CloseWrite()
				}()
				io.Copy(c, b)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	u := *p
	u.Scheme, u.Host = "https", ln.Addr().String()
	return &u
}

// An https request through a proxy, the Client's or the Handler's own (its
// Proxy function), goes over the own HTTP/1.1 client, through a CONNECT
// (or SOCKS5) tunnel with the proxy's credentials: its Capture is the
// bytes the server received and sent, with WARC-Protocol's http/1.1 and
// the TLS version. With HTTP2 it stays on net/http (rendered).
func TestProxiedHTTPSWire(t *testing.T) {
	const reply = "HTTP/1.1 200 OK\r\nETag: \"x\"\r\nZ-Last: z\r\nContent-Length: 2\r\nA-First: a\r\n\r\nok"
	srv, trust := newWireTLS(t, reply)
	target := "https://" + srv.ln.Addr().String() + "/p?q=1"
	for _, tt := range []struct {
		name    string
		kind    string
		handler bool // the Handler's Proxy chooses, not the Client's
		http2   bool
	}{
		{name: "client http", kind: "http"},
		{name: "client socks5", kind: "socks5"},
		{name: "handler http", kind: "http", handler: true},
		{name: "handler socks5", kind: "socks5", handler: true},
		{name: "client https", kind: "https"},
		{name: "handler https", kind: "https", handler: true},
		{name: "client http, HTTP2", kind: "http", http2: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kind := tt.kind
			if kind == "https" {
				kind = "http"
			}
			px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: kind, User: "user", Password: "sec ret"})
			pu := px.URL
			if tt.kind == "https" {
				pu = tlsFront(t, px.URL, srv.certs)
			}
			h := newHandler(t)
			h.HTTP2 = tt.http2
			c := &fetch.Client{TLS: trust}
			if tt.handler {
				h.Proxy = func(*http.Request) (*neturl.URL, error) { return pu, nil }
			} else {
				c.Proxy = fetch.ProxyAll(pu, "")
			}
			c.Register("https", h)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for i := range 2 { // the second reuses the tunnel
				res, err := c.Do(ctx, &fetch.Request{URL: parse(t, target), Capture: true})
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil || string(b) != "ok" {
					t.Fatalf("body %q, %v", b, err)
				}
				cp := res.Capture
				if tt.http2 {
					if cp == nil || !cp.Rendered {
						t.Errorf("HTTP2 through a proxy: Capture %+v, want rendered by net/http", cp)
					}
					return
				}
				if cp == nil || cp.Rendered || cp.Protocol != "http/1.1" || cp.TLS != "tls/1.3" {
					t.Fatalf("Capture %+v, want http/1.1 over tls/1.3, as sent", cp)
				}
				srv.mu.Lock()
				got, sent := srv.got[len(srv.got)-1], srv.sent[len(srv.sent)-1]
				srv.mu.Unlock()
				if !bytes.Equal(cp.Request, got) {
					t.Errorf("request %d: Capture.Request\n%q\nthe server read\n%q", i, cp.Request, got)
				}
				if want := strings.TrimSuffix(string(sent), "ok"); string(cp.Reply) != want {
					t.Errorf("request %d: Capture.Reply\n%q\nthe server wrote\n%q", i, cp.Reply, want)
				}
			}
			if asked := px.Asked(); len(asked) != 1 {
				t.Errorf("the proxy was asked for %q, want one tunnel, reused", asked)
			}
		})
	}
}

// refusingProxy is an HTTP proxy on 127.0.0.1 that answers each CONNECT
// with reply, or never answers when reply is "".
func refusingProxy(t *testing.T, reply string) *neturl.URL {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				if reply == "" {
					<-done // silent until the test ends
					return
				}
				io.WriteString(c, reply)
			}()
		}
	}()
	t.Cleanup(func() { close(done); ln.Close(); wg.Wait() })
	return &neturl.URL{Scheme: "http", Host: ln.Addr().String(), User: neturl.UserPassword("user", "s3cret")}
}

// A proxy that refuses the CONNECT of an https request, or never answers
// it, fails the request with the kind (and exit code) CONTRACT §1 gives:
// 407 Auth (6), another refusal Connect (5), silence Timeout (10) within
// the connect timeout; the proxy's password never shown. The same through
// the Handler's own Proxy.
func TestProxiedHTTPSRefused(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reply string
		kind  fetch.Kind
		code  int
	}{
		{"407", "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\n\r\n", fetch.Auth, 6},
		{"403", "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n", fetch.Connect, 5},
		{"silent", "", fetch.Timeout, 10},
	} {
		for _, handler := range []bool{false, true} {
			name := tt.name + " client"
			if handler {
				name = tt.name + " handler"
			}
			t.Run(name, func(t *testing.T) {
				p := refusingProxy(t, tt.reply)
				h := newHandler(t)
				c := &fetch.Client{ConnectTimeout: 300 * time.Millisecond}
				if handler {
					h.Proxy = func(*http.Request) (*neturl.URL, error) { return p, nil }
				} else {
					c.Proxy = fetch.ProxyAll(p, "")
				}
				c.Register("https", h)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				_, err := c.Do(ctx, &fetch.Request{URL: parse(t, "https://127.0.0.1:8443/x")})
				if !errors.Is(err, tt.kind) || fetch.ExitCode(err) != tt.code {
					t.Fatalf("error %v (kind %v, exit %d), want kind %v, exit %d", err, fetch.KindOf(err), fetch.ExitCode(err), tt.kind, tt.code)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("the error shows the proxy's password: %v", err)
				}
			})
		}
	}
}

// A host the no-proxy list names is reached direct, and a connection
// made direct is not lent to a request that goes through a proxy (nor
// the other way round): the pool keeps them apart.
func TestProxiedHTTPSPoolApart(t *testing.T) {
	srv, trust := newWireTLS(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: "http"})
	h := newHandler(t)
	direct := &fetch.Client{TLS: trust, Proxy: fetch.ProxyAll(px.URL, "127.0.0.1")}
	direct.Register("https", h)
	proxied := &fetch.Client{TLS: trust, Proxy: fetch.ProxyAll(px.URL, "")}
	proxied.Register("https", h)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	target := "https://" + srv.ln.Addr().String() + "/"
	for i, c := range []*fetch.Client{direct, proxied, direct, proxied} {
		res, err := c.Do(ctx, &fetch.Request{URL: parse(t, target)})
		if err != nil {
			t.Fatalf("fetch %d: %v", i, err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		// One tunnel, made by the second fetch, and reused by the fourth.
		if asked := px.Asked(); len(asked) != min(i, 1) {
			t.Errorf("after fetch %d the proxy was asked for %q, want %d tunnels", i, asked, min(i, 1))
		}
	}
	// The third fetch took the first's connection, not the tunnel.
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.conns != 2 {
		t.Errorf("the server had %d connections, want 2: one direct, one through the proxy", srv.conns)
	}
}
