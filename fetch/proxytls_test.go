package fetch

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	neturl "net/url"
	"testing"
	"time"

	"github.com/rfc1738/fetch/url"
)

// selfSigned returns a certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "proxy"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(c)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// An https proxy: TLS to the proxy, CONNECT inside it, the target's bytes
// inside that. The tunnel reads the target's greeting, and no walk down
// NetConn from it reaches the proxy's TLS connection or its socket, which
// do not carry the target's bytes as they are.
func TestHTTPSProxyTunnel(t *testing.T) {
	target, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	go func() {
		c, err := target.Accept()
		if err == nil {
			io.WriteString(c, "greeting")
			c.Close()
		}
	}()
	cert, pool := selfSigned(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- ""
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil {
			done <- ""
			return
		}
		done <- req.Method + " " + req.RequestURI
		s, err := net.Dial("tcp", req.RequestURI)
		if err != nil {
			return
		}
		defer s.Close()
		io.WriteString(c, "HTTP/1.1 200 OK\r\n\r\n")
		io.Copy(c, s)
	}()
	p := &neturl.URL{Scheme: "https", Host: ln.Addr().String()}
	u, _ := url.Parse("gopher://" + target.Addr().String() + "/")
	r := &Request{URL: u, TLS: &tls.Config{RootCAs: pool}, net: &netOpts{proxy: func(*url.URL) (*neturl.URL, error) { return p, nil }}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := r.DialContext(ctx, "tcp", target.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := <-done; got != "CONNECT "+target.Addr().String() {
		t.Errorf("the proxy got %q", got)
	}
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "greeting" {
		t.Errorf("read %q, %v", b, err)
	}
	var x net.Conn = c
	for range 8 {
		switch y := x.(type) {
		case *tls.Conn, *net.TCPConn:
			t.Fatalf("a walk down NetConn reached %T, under the tunnel", y)
		case interface{ NetConn() net.Conn }:
			x = y.NetConn()
			continue
		}
		break
	}
	if d, ok := dialedOf(c); !ok || d.addr != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("dialedOf = %+v, %v", d, ok)
	}
}
