package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newCert makes a certificate signed by parent (self-signed when parent
// is nil) and returns it with its key.
func newCert(t *testing.T, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, isCA bool) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		IsCA:         isCA, BasicConstraintsValid: true,
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c, key
}

func writePEM(t *testing.T, path string, blocks ...*pem.Block) {
	t.Helper()
	var b []byte
	for _, blk := range blocks {
		b = append(b, pem.EncodeToMemory(blk)...)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A server requiring a client certificate: without one, exit 6 with a
// message that says so (not "connection reset"); with --cert and --key,
// or a --cert file holding an encrypted key and its password, the body.
// --pinnedpubkey and the TLS versions hold too. On both transports.
func TestTLSOptions(t *testing.T) {
	ca, caKey := newCert(t, "test CA", nil, nil, true)
	client, clientKey := newCert(t, "client", ca, caKey, false)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello "+r.TLS.PeerCertificates[0].Subject.CommonName)
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	defer srv.Close()

	dir := t.TempDir()
	cacert := filepath.Join(dir, "server.pem")
	writePEM(t, cacert, &pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	keyDER, _ := x509.MarshalECPrivateKey(clientKey)
	certBlock := &pem.Block{Type: "CERTIFICATE", Bytes: client.Raw}
	keyBlock := &pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}
	certFile, keyFile, both := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem"), filepath.Join(dir, "both.pem")
	writePEM(t, certFile, certBlock)
	writePEM(t, keyFile, keyBlock)
	//lint:ignore SA1019 the legacy encrypted PEM that --cert FILE:PASS reads
	enc, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", keyDER, []byte("pw"), x509.PEMCipherAES256)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, both, certBlock, enc)
	spki := sha256.Sum256(srv.Certificate().RawSubjectPublicKeyInfo)
	pin := "sha256//" + base64.StdEncoding.EncodeToString(spki[:])
	wrongPin := "sha256//" + base64.StdEncoding.EncodeToString(make([]byte, 32))

	for _, tt := range []struct {
		args    []string
		want    string
		code    int
		errText string
	}{
		{args: nil, code: 6, errText: "client certificate"},
		{args: []string{"--tls-max", "1.2"}, code: 6, errText: "client certificate"},
		{args: []string{"--cert", certFile, "--key", keyFile}, want: "hello client"},
		{args: []string{"-E", both + ":pw"}, want: "hello client"},
		{args: []string{"--cert", both + ":wrong"}, code: 2, errText: "password"},
		{args: []string{"--cert", both}, code: 2, errText: "encrypted"},
		{args: []string{"--key", keyFile}, code: 2},
		{args: []string{"--cert", certFile, "--key", keyFile, "--pinnedpubkey", wrongPin + ";" + pin, "--tlsv1.3"}, want: "hello client"},
		{args: []string{"--cert", certFile, "--key", keyFile, "--pinnedpubkey", wrongPin}, code: 5, errText: "pinned"},
		{args: []string{"--pinnedpubkey", "md5//abc"}, code: 2},
		{args: []string{"--tlsv1.3", "--tls-max", "1.2"}, code: 2},
	} {
		// Over the own HTTP/1.1 client, and over net/http's (--http2,
		// which this server answers in HTTP/1.1).
		for _, transport := range [][]string{nil, {"--http2"}} {
			args := append(append([]string{"-sS", "--cacert", cacert}, transport...), tt.args...)
			out, errs, code := fetchCmd(t, "", append(args, srv.URL+"/")...)
			if code != tt.code || out != tt.want || !strings.Contains(errs, tt.errText) {
				t.Errorf("fetch %q: exit %d, out %q, err %q; want exit %d, %q, an error naming %q", args[3:], code, out, errs, tt.code, tt.want, tt.errText)
			}
		}
	}
}
