package http

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// tlsServer starts an HTTPS server offering HTTP/2 and returns it with a
// TLS configuration that trusts it.
func tlsServer(t *testing.T, fn http.HandlerFunc) (*httptest.Server, *tls.Config) {
	srv := httptest.NewUnstartedServer(fn)
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake of TestHTTPS
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return srv, &tls.Config{RootCAs: pool}
}

func TestHTTPS(t *testing.T) {
	srv, trust := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Proto", r.Proto)
		w.Write(bigBody)
	})
	h := newHandler(t)
	h.HTTP2 = true // the HTTP/2 path, which a server offering it gets on request
	// Unknown authority: a connect failure that holds the verification
	// error (the command adds its hint), and names no option itself.
	_, _, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+"/")})
	var ua x509.UnknownAuthorityError
	var cv *tls.CertificateVerificationError
	if !errors.Is(err, fetch.Connect) || !(errors.As(err, &ua) || errors.As(err, &cv)) || strings.Contains(err.Error(), "--") {
		t.Errorf("untrusted certificate: %v (kind %v), want Connect holding the verification error, naming no option", err, fetch.KindOf(err))
	}
	for _, tc := range []*tls.Config{trust, {InsecureSkipVerify: true}} {
		var tr strings.Builder
		res, body, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+"/"), TLS: tc, Trace: fetch.NewTrace(&tr)})
		if err != nil || len(body) != len(bigBody) {
			t.Fatalf("HTTPS: %d bytes, %v", len(body), err)
		}
		if res.Extra["http-version"] != "HTTP/2.0" {
			t.Errorf("HTTPS: protocol %q, want HTTP/2.0", res.Extra["http-version"])
		}
		if !strings.Contains(tr.String(), "> GET / HTTP/2\n") || !strings.Contains(tr.String(), "< HTTP/2.0 200 OK\n") {
			t.Errorf("trace:\n%s", tr.String())
		}
	}
	fetchtest.Run(t, &httpsOnly{h: h, tls: trust}, fetchtest.Cases{
		Existing: srv.URL + "/big",
		Want:     bigBody,
		Missing:  srv.URL + "/missing",
	})
}

// httpsOnly is the handler with a TLS configuration, as the Client passes
// it on every request.
type httpsOnly struct {
	h   *Handler
	tls *tls.Config
}

func (s *httpsOnly) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	req.TLS = s.tls
	return s.h.Fetch(ctx, req)
}

// TestConnectionReuse checks that sequential and concurrent fetches share
// connections: HTTP/1.1 keep-alive, and one HTTP/2 connection.
func TestConnectionReuse(t *testing.T) {
	var mu sync.Mutex
	conns := map[string]bool{}
	fn := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		conns[r.RemoteAddr] = true
		mu.Unlock()
		io.WriteString(w, "x")
	}
	plain := server(t, fn)
	secure, trust := tlsServer(t, fn)
	for _, base := range []string{plain.URL, secure.URL} {
		mu.Lock()
		clear(conns)
		mu.Unlock()
		h := newHandler(t)
		h.HTTP2 = true // the HTTP/2 path, which a server offering it gets on request
		for range 5 {
			if _, _, err := get(t, h, &fetch.Request{URL: parse(t, base+"/"), TLS: trust}); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if _, _, err := get(t, h, &fetch.Request{URL: parse(t, base+"/"), TLS: trust}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if n := len(conns); n > 4 {
			t.Errorf("%s: 9 fetches used %d connections", base, n)
		}
	}
}

// TestAbortedStreams cuts a body mid-way over HTTP/1.1 (connection
// closed) and HTTP/2 (stream reset): both are Kind Incomplete.
func TestAbortedStreams(t *testing.T) {
	fn := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.Write(bigBody[:5000])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	plain := server(t, fn)
	secure, trust := tlsServer(t, fn)
	h := newHandler(t)
	h.HTTP2 = true // the HTTP/2 path, which a server offering it gets on request
	for _, base := range []string{plain.URL, secure.URL} {
		_, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/"), TLS: trust})
		if !errors.Is(err, fetch.Incomplete) || len(body) != 5000 {
			t.Errorf("%s: %d bytes, %v (kind %v); want 5000 and Incomplete", base, len(body), err, fetch.KindOf(err))
		}
	}
}

// TestHTTP2: an https server that offers HTTP/2 is spoken to in HTTP/1.1
// (only "http/1.1" offered in the handshake) unless HTTP2 is set.
func TestHTTP2(t *testing.T) {
	srv, trust := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Proto)
	})
	for _, tt := range []struct {
		h    *Handler
		want string
	}{
		{&Handler{}, "HTTP/1.1"},
		{&Handler{HTTP2: true}, "HTTP/2.0"},
	} {
		t.Cleanup(func() { tt.h.Close() })
		res, body, err := get(t, tt.h, &fetch.Request{URL: parse(t, srv.URL+"/"), TLS: trust})
		if err != nil || string(body) != tt.want || res.Extra[fetch.ExtraHTTPVersion] != tt.want {
			t.Errorf("HTTP2 %v: server saw %q, reply %q, %v; want %s", tt.h.HTTP2, body, res.Extra[fetch.ExtraHTTPVersion], err, tt.want)
		}
	}
}

// TestTLSResumption checks that a new connection resumes the TLS session
// of an earlier one (an abbreviated handshake: no certificate to verify),
// under TLS 1.2 and 1.3, over HTTP/1.1 (the own client's and net/http's)
// and HTTP/2.
func TestTLSResumption(t *testing.T) {
	for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		for _, tt := range []struct {
			name        string
			h2, netHTTP bool
		}{{"h1", false, false}, {"net-http", false, true}, {"http2", true, false}} {
			t.Run(fmt.Sprintf("%s/%s", tls.VersionName(version), tt.name), func(t *testing.T) {
				resumed := make(chan bool, 4)
				srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					resumed <- r.TLS.DidResume
					io.WriteString(w, "x")
				}))
				srv.EnableHTTP2 = true
				srv.TLS = &tls.Config{MaxVersion: version}
				srv.StartTLS()
				t.Cleanup(srv.Close)
				pool := x509.NewCertPool()
				pool.AddCert(srv.Certificate())
				trust := &tls.Config{RootCAs: pool}
				h := newHandler(t)
				h.HTTP2, h.NetHTTP = tt.h2, tt.netHTTP
				for i, want := range []bool{false, true, true} {
					var tr strings.Builder
					if _, _, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+"/"), TLS: trust, Trace: fetch.NewTrace(&tr)}); err != nil {
						t.Fatal(err)
					}
					if got := <-resumed; got != want {
						t.Errorf("connection %d: DidResume = %v, want %v", i+1, got, want)
					}
					if got := strings.Contains(tr.String(), ", session resumed\n"); got != want {
						t.Errorf("connection %d: the trace says the session resumed: %v, want %v; trace:\n%s", i+1, got, want, tr.String())
					}
					h.Close() // the next request dials anew
					srv.CloseClientConnections()
				}
			})
		}
	}
}
