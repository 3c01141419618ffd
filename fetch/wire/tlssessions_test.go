package wire_test

import (
	"crypto/tls"
	"io"
	"net"
	"testing"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/fetch/wire"
)

// resumeServer is a TLS server on 127.0.0.1 that answers each connection
// with one byte after the handshake (so that a TLS 1.3 client reads the
// session ticket sent after it) and reports whether each handshake
// resumed a session.
func resumeServer(t *testing.T, conf *tls.Config) (addr string, resumed <-chan bool) {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", conf)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan bool, 16)
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tc := c.(*tls.Conn)
			if tc.Handshake() == nil {
				ch <- tc.ConnectionState().DidResume
				tc.Write([]byte{'x'})
				io.Copy(io.Discard, tc) // until the client closes
			}
			tc.Close()
		}
	}()
	return ln.Addr().String(), ch
}

// connect makes one connection under conf and reads the server's byte.
func connect(t *testing.T, addr string, conf *tls.Config) {
	t.Helper()
	c, err := tls.Dial("tcp", addr, conf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
}

func TestTLSSessionsResume(t *testing.T) {
	for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(version), func(t *testing.T) {
			server, trust := fetchtest.TLS(t)
			server.MaxVersion = version
			addr, resumed := resumeServer(t, server)
			host, _, _ := net.SplitHostPort(addr)
			var s wire.TLSSessions
			other := trust.Clone()
			for i, step := range []struct {
				conf *tls.Config
				want bool
			}{
				{trust, false}, // first: a full handshake
				{trust, true},  // the same configuration resumes
				{trust, true},
				{other, false}, // another configuration does not
				{nil, false},   // nor do the defaults (and fail to verify)
			} {
				conf := s.Config(step.conf, host)
				if conf == step.conf {
					t.Fatalf("step %d: Config returned its argument, not a copy", i)
				}
				if conf.ServerName != host {
					t.Errorf("step %d: ServerName %q, want %q", i, conf.ServerName, host)
				}
				if step.conf == nil {
					if _, err := tls.Dial("tcp", addr, conf); err == nil {
						t.Errorf("step %d: the defaults trusted the test certificate", i)
					}
					continue
				}
				connect(t, addr, conf)
				if got := <-resumed; got != step.want {
					t.Errorf("step %d: DidResume = %v, want %v", i, got, step.want)
				}
			}
		})
	}
}

func TestTLSSessionsKeepsOwnCache(t *testing.T) {
	own := tls.NewLRUClientSessionCache(1)
	base := &tls.Config{ServerName: "example.test", ClientSessionCache: own}
	var s wire.TLSSessions
	c := s.Config(base, "127.0.0.1")
	if c.ClientSessionCache != own {
		t.Error("Config replaced the configuration's own session cache")
	}
	if c.ServerName != "example.test" {
		t.Errorf("ServerName %q, want the configuration's own, example.test", c.ServerName)
	}
	if base.ClientSessionCache != own || base.ServerName != "example.test" {
		t.Error("Config changed its argument")
	}
	if a, b := s.Config(nil, "h"), s.Config(nil, "h"); a.ClientSessionCache == nil || a.ClientSessionCache != b.ClientSessionCache {
		t.Error("two connections under the defaults do not share a session cache")
	}
}
