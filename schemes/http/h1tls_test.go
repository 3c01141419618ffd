package http

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// testTLS returns a server configuration with a certificate for
// 127.0.0.1 that offers "http/1.1" by ALPN, and a client configuration
// that trusts the certificate.
func testTLS(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS() // for its certificate
	cert := srv.TLS.Certificates[0]
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	srv.Close()
	return &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}}, &tls.Config{RootCAs: pool}
}

// rawTLSServer answers each HTTP/1.1 request, over TLS, with reply byte
// for byte, and keeps each request's head as it came.
type rawTLSServer struct {
	reply    string
	accepted atomic.Int32 // connections, each one handshake
	mu       sync.Mutex
	got      []string
}

// start serves on 127.0.0.1 and returns the https URL of its root.
func (s *rawTLSServer) start(t *testing.T, cfg *tls.Config) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := fetchtest.ServeListener(t, tls.NewListener(ln, cfg), func(c net.Conn) {
		s.accepted.Add(1)
		br := bufio.NewReader(c)
		for {
			var head bytes.Buffer
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				head.WriteString(line)
				if line == "\r\n" {
					break
				}
			}
			s.mu.Lock()
			s.got = append(s.got, head.String())
			s.mu.Unlock()
			if _, err := io.WriteString(c, s.reply); err != nil {
				return
			}
		}
	})
	return "https://" + addr
}

// requests returns the heads of the requests the server got.
func (s *rawTLSServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// TestH1TLSWireHeads: over https the own client keeps the heads as they
// went over the connection, decrypted: the reply's ETag, its fields in
// the server's order, Connection: keep-alive; the request as the server
// got it; Protocol "http/1.1" and TLS its version, not rendered. Two
// requests make one
// connection, one handshake, and the trace says so as net/http's path
// does. net/http's path (NetHTTP) renders the heads, as before.
func TestH1TLSWireHeads(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nServer: raw\r\nETag: \"v1\"\r\nX-Zulu: z\r\nConnection: keep-alive\r\nX-Alpha: a\r\nContent-Length: 5\r\n\r\n"
	srvTLS, trust := testTLS(t)
	s := &rawTLSServer{reply: head + "hello"}
	base := s.start(t, srvTLS)
	h := newHandler(t)
	var traces []string
	for i := range 2 {
		var tr strings.Builder
		res, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/x"), TLS: trust, Capture: true, Trace: fetch.NewTrace(&tr)})
		if err != nil || string(body) != "hello" {
			t.Fatalf("request %d: %q, %v", i+1, body, err)
		}
		if res.Header.Get("Etag") != `"v1"` {
			t.Errorf("request %d: ETag %q", i+1, res.Header.Get("Etag"))
		}
		c := res.Capture
		if c == nil {
			t.Fatalf("request %d: no Capture", i+1)
		}
		if c.Protocol != "http/1.1" || c.TLS != "tls/1.3" || c.Rendered || string(c.Reply) != head {
			t.Errorf("request %d: Capture %q %q, rendered %v, reply %q; want http/1.1 over tls/1.3, not rendered, %q", i+1, c.Protocol, c.TLS, c.Rendered, c.Reply, head)
		}
		if got := s.requests(); len(got) != i+1 || string(c.Request) != got[i] {
			t.Errorf("request %d: Capture.Request %q, the server got %q", i+1, c.Request, got)
		}
		traces = append(traces, tr.String())
	}
	if n := s.accepted.Load(); n != 1 {
		t.Errorf("%d connections (handshakes) for two requests, want 1", n)
	}
	if !strings.Contains(traces[0], `ALPN "http/1.1"`) || !strings.Contains(traces[0], "> GET /x HTTP/1.1\n") {
		t.Errorf("first request's trace lacks the handshake or the request line:\n%s", traces[0])
	}
	if !strings.Contains(traces[1], "reusing the connection") || strings.Contains(traces[1], "ALPN") {
		t.Errorf("second request's trace does not say the connection was reused:\n%s", traces[1])
	}
	h.mu.Lock()
	viaNet := len(h.transports)
	h.mu.Unlock()
	if viaNet != 0 {
		t.Errorf("net/http's transport was made for a direct https request")
	}

	hn := newHandler(t)
	hn.NetHTTP = true
	res, _, err := get(t, hn, &fetch.Request{URL: parse(t, base+"/x"), TLS: trust, Capture: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Capture; c == nil || !c.Rendered || c.Protocol != "http/1.1" || c.TLS != "tls/1.3" {
		t.Errorf("NetHTTP: Capture %+v, want rendered http/1.1 over tls/1.3", c)
	}
	res, _, err = get(t, h, &fetch.Request{URL: parse(t, base+"/x"), TLS: &tls.Config{RootCAs: trust.RootCAs, MaxVersion: tls.VersionTLS12}, Capture: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Capture; c == nil || c.TLS != "tls/1.2" {
		t.Errorf("TLS 1.2: Capture %+v, want tls/1.2", c)
	}
}

// An http and an https connection to one host:port are never the same: a
// plain request to the TLS server's port does not take the idle TLS
// connection, and fails.
func TestH1TLSSchemesApart(t *testing.T) {
	srvTLS, trust := testTLS(t)
	s := &rawTLSServer{reply: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"}
	base := s.start(t, srvTLS)
	h := newHandler(t)
	if _, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/"), TLS: trust}); err != nil || string(body) != "ok" {
		t.Fatalf("https: %q, %v", body, err)
	}
	plain := "http://" + strings.TrimPrefix(base, "https://") + "/"
	if _, body, err := get(t, h, &fetch.Request{URL: parse(t, plain), TLS: trust, IdleTimeout: 2 * time.Second}); err == nil {
		t.Errorf("http to the TLS port: %q, no error: the https connection was taken", body)
	}
	if n := s.accepted.Load(); n != 2 {
		t.Errorf("%d connections, want 2: the http request dials its own", n)
	}
}

// Pipelining goes over TLS as over TCP: 24 requests on one connection,
// several outstanding at once.
func TestH1TLSPipeline(t *testing.T) {
	srvTLS, trust := testTLS(t)
	s := &pipeServer{delay: func(string) time.Duration { return 2 * time.Millisecond }, tls: srvTLS}
	base := s.start(t)
	h := &Handler{Pipeline: 4}
	t.Cleanup(func() { h.Close() })
	c := &fetch.Client{PerHost: 1, TLS: trust}
	c.Register("https", h)
	hc := fetch.HandlerFunc(c.Do)
	fetchMany(t, hc, base, 1)
	fetchMany(t, hc, base, 24)
	if n := s.accepted.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
	s.mu.Lock()
	peak := s.peak
	s.mu.Unlock()
	if peak < 2 {
		t.Errorf("at most %d request outstanding on the connection: nothing was pipelined", peak)
	}
}

// httpsCases are the ways an https request may go: the own client, net/http
// over HTTP/1.1 (NetHTTP), and net/http offering HTTP/2 (HTTP2).
var httpsCases = []struct {
	name          string
	netHTTP, http bool
}{{"h1", false, false}, {"net-http", true, false}, {"http2", false, true}}

// A server that requires a client certificate, asked without one, is
// ErrClientCertificate of Kind Auth on every transport and TLS version,
// whatever form the refusal takes on the wire; a pinned key that is not
// the server's is ErrPinnedKey of Kind Connect.
func TestHTTPSRefusals(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") }))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	pinned, err := fetch.PinnedPublicKeys("sha256//" + base64.StdEncoding.EncodeToString(make([]byte, sha256.Size)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range httpsCases {
		for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
			t.Run(fmt.Sprintf("%s/%s", tc.name, tls.VersionName(version)), func(t *testing.T) {
				h := newHandler(t)
				h.NetHTTP, h.HTTP2 = tc.netHTTP, tc.http
				trust := &tls.Config{RootCAs: pool, MaxVersion: version}
				_, _, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+"/"), TLS: trust})
				if !errors.Is(err, fetch.ErrClientCertificate) || fetch.KindOf(err) != fetch.Auth {
					t.Errorf("no client certificate: %v (kind %v), want ErrClientCertificate of Kind Auth", err, fetch.KindOf(err))
				}
				pin := &tls.Config{RootCAs: pool, MaxVersion: version, VerifyConnection: pinned}
				_, _, err = get(t, h, &fetch.Request{URL: parse(t, srv.URL+"/"), TLS: pin})
				if !errors.Is(err, fetch.ErrPinnedKey) || fetch.KindOf(err) != fetch.Connect {
					t.Errorf("pinned key mismatch: %v (kind %v), want ErrPinnedKey of Kind Connect", err, fetch.KindOf(err))
				}
			})
		}
	}
}

// The connect timeout bounds the dial and the TLS handshake together: a
// server that accepts and never answers the handshake is a Timeout naming
// the handshake, on the own client.
func TestH1TLSHandshakeTimeout(t *testing.T) {
	addr := fetchtest.Serve(t, func(c net.Conn) {
		io.Copy(io.Discard, c) // reads the hello, answers nothing
	})
	h := newHandler(t)
	_, _, err := get(t, h, &fetch.Request{URL: parse(t, "https://"+addr+"/"), ConnectTimeout: 200 * time.Millisecond})
	if fetch.KindOf(err) != fetch.Timeout || !strings.Contains(err.Error(), "TLS handshake") {
		t.Errorf("silent server: %v (kind %v), want a Timeout naming the TLS handshake", err, fetch.KindOf(err))
	}
}

// A connection made under one TLS configuration is not reused under
// another: after a fetch with InsecureSkipVerify, a fetch whose
// configuration trusts no root dials anew and fails verification, rather
// than take the idle connection that was never verified.
func TestH1TLSConfigsApart(t *testing.T) {
	srvTLS, trust := testTLS(t)
	s := &rawTLSServer{reply: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"}
	base := s.start(t, srvTLS)
	h := newHandler(t)
	if _, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/"), TLS: &tls.Config{InsecureSkipVerify: true}}); err != nil || string(body) != "ok" {
		t.Fatalf("-k: %q, %v", body, err)
	}
	_, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/"), TLS: &tls.Config{RootCAs: x509.NewCertPool()}})
	var ua x509.UnknownAuthorityError
	var cv *tls.CertificateVerificationError
	if err == nil || !(errors.As(err, &ua) || errors.As(err, &cv)) {
		t.Errorf("trusting no root: %q, %v; want a verification error", body, err)
	}
	if _, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/"), TLS: trust}); err != nil || string(body) != "ok" {
		t.Fatalf("trusting the server: %q, %v", body, err)
	}
	if n := s.accepted.Load(); n != 3 {
		t.Errorf("%d connections, want 3: one per configuration", n)
	}
}

// A body over TLS copied to a file (an io.ReaderFrom, which a plain
// connection's body is spliced into from the socket) is the decrypted
// body: TLS connections are never spliced.
func TestH1TLSNoSplice(t *testing.T) {
	srv, trust := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(bigBody))) // what is spliced
		w.Write(bigBody)
	})
	h := newHandler(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := h.Fetch(ctx, &fetch.Request{URL: parse(t, srv.URL+"/"), TLS: trust})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := io.Copy(f, res.Body)
	res.Body.Close()
	if err != nil || n != int64(len(bigBody)) {
		t.Fatalf("copied %d bytes, %v; want %d", n, err, len(bigBody))
	}
	got, err := os.ReadFile(f.Name())
	if err != nil || !bytes.Equal(got, bigBody) {
		t.Errorf("the file holds %d bytes, not the body (%v)", len(got), err)
	}
}
