package wire_test

import (
	"crypto/ecdh"
	"crypto/mlkem"
	"crypto/rand"
	"crypto/tls"
	"io"
	"net"
	"testing"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/fetch/wire"
)

// BenchmarkTLSHandshake times one TLS handshake and a byte's exchange over
// a fresh loopback connection, client and in-process server together: full
// or resumed (through wire.TLSSessions), against a TLS 1.2 server (as
// nginx 1.22 on Debian bookworm is by default) and a TLS 1.3 one that
// takes X25519 only (OpenSSL 3.0 has no ML-KEM), with Go's default curve
// preferences (an X25519MLKEM768 key share offered beside X25519's) and
// with X25519 alone. The difference between the two preferences is the
// client's extra key share, which neither server uses.
func BenchmarkTLSHandshake(b *testing.B) {
	for _, srv := range []struct {
		name    string
		version uint16
	}{{"tls12", tls.VersionTLS12}, {"tls13-x25519", tls.VersionTLS13}} {
		for _, curves := range []struct {
			name string
			pref []tls.CurveID
		}{{"default-curves", nil}, {"x25519-only", []tls.CurveID{tls.X25519}}} {
			for _, resume := range []bool{false, true} {
				name := srv.name + "/" + curves.name + "/full"
				if resume {
					name = srv.name + "/" + curves.name + "/resumed"
				}
				b.Run(name, func(b *testing.B) {
					server, client := fetchtest.TLS(b)
					server.MaxVersion = srv.version
					server.CurvePreferences = []tls.CurveID{tls.X25519}
					addr := handshakeServer(b, server)
					client.CurvePreferences = curves.pref
					var s wire.TLSSessions
					conf := s.Config(client, "127.0.0.1")
					if !resume {
						conf.ClientSessionCache = nil
					}
					for b.Loop() {
						c, err := tls.Dial("tcp", addr, conf)
						if err != nil {
							b.Fatal(err)
						}
						if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
							b.Fatal(err)
						}
						c.Close()
					}
				})
			}
		}
	}
}

// handshakeServer is a TLS server on 127.0.0.1 that answers each
// connection with one byte, as resumeServer, for benchmarks.
func handshakeServer(b *testing.B, conf *tls.Config) string {
	ln, err := tls.Listen("tcp", "127.0.0.1:0", conf)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	b.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				c.Write([]byte{'x'})
				io.Copy(io.Discard, c)
				c.Close()
			}(c)
		}
	}()
	return ln.Addr().String()
}

// BenchmarkKeyShare times the client's key shares alone: X25519's, which
// every handshake makes, and ML-KEM-768's, which Go's default preferences
// add to every ClientHello.
func BenchmarkKeyShare(b *testing.B) {
	b.Run("x25519", func(b *testing.B) {
		for b.Loop() {
			if _, err := ecdh.X25519().GenerateKey(rand.Reader); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mlkem768", func(b *testing.B) {
		for b.Loop() {
			k, err := mlkem.GenerateKey768()
			if err != nil {
				b.Fatal(err)
			}
			_ = k.EncapsulationKey().Bytes()
		}
	})
}
