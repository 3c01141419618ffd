package http

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// TestTLSGate fetches from a server n times at once, each request held
// until all n have come, so that n connections are made at once: the
// first makes a full TLS handshake and the others, held back until its
// session is in, resume it. A server that gives no sessions holds no one
// back for long: every request is answered. On both transports: the gate
// is one.
func TestTLSGate(t *testing.T) {
	const n = 8 // connections per host (the Client's PerHost)
	onBoth(t, func(t *testing.T, tc transportCase) { testTLSGate(t, tc, n) })
}

func testTLSGate(t *testing.T, tc transportCase, n int) {
	for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		for _, tickets := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/tickets=%v", tls.VersionName(version), tickets), func(t *testing.T) {
				var mu sync.Mutex
				resumed := map[string]bool{} // by connection
				came := 0
				all := make(chan struct{})
				srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					resumed[r.RemoteAddr] = r.TLS.DidResume
					if came++; came == n {
						close(all)
					}
					mu.Unlock()
					select {
					case <-all:
					case <-time.After(10 * time.Second):
						http.Error(w, "not all requests came", http.StatusServiceUnavailable)
						return
					}
					io.WriteString(w, "x")
				}))
				srv.TLS = &tls.Config{MaxVersion: version, SessionTicketsDisabled: !tickets}
				srv.StartTLS()
				t.Cleanup(srv.Close)
				pool := x509.NewCertPool()
				pool.AddCert(srv.Certificate())
				trust := &tls.Config{RootCAs: pool}
				h := capped(tc.handler(t), n)
				var wg sync.WaitGroup
				for range n {
					wg.Go(func() {
						res, err := h.Fetch(context.Background(), &fetch.Request{URL: parse(t, srv.URL+"/"), TLS: trust})
						if err != nil {
							t.Error(err)
							return
						}
						body, err := io.ReadAll(res.Body)
						res.Body.Close()
						if err != nil || string(body) != "x" {
							t.Errorf("fetch: %q, %v", body, err)
						}
					})
				}
				wg.Wait()
				mu.Lock()
				defer mu.Unlock()
				full := 0
				for _, r := range resumed {
					if !r {
						full++
					}
				}
				want := 1
				if !tickets {
					want = n
				}
				if len(resumed) != n || full != want {
					t.Errorf("%d connections, %d full handshakes; want %d and %d", len(resumed), full, n, want)
				}
			})
		}
	}
}

// With ParallelImmediate no connection waits for another's handshake: the
// server holds each handshake until n connections have said hello (2 s at
// most), and all n say it within a second. (Without it the gate lets one
// through first: TestTLSGate.)
func TestTLSParallelImmediate(t *testing.T) {
	onBoth(t, testTLSParallelImmediate)
}

func testTLSParallelImmediate(t *testing.T, tc transportCase) {
	const n = 4
	var mu sync.Mutex
	hellos := 0
	all := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") }))
	srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		mu.Lock()
		if hellos++; hellos == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(2 * time.Second):
		}
		return nil, nil
	}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	trust := &tls.Config{RootCAs: pool}
	h := tc.set(t, &Handler{ParallelImmediate: true})
	c := capped(h, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			res, err := c.Fetch(context.Background(), &fetch.Request{URL: parse(t, srv.URL+"/"), TLS: trust})
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		})
	}
	select {
	case <-all:
	case <-time.After(time.Second):
		mu.Lock()
		t.Errorf("%d of %d connections said hello within a second: some waited", hellos, n)
		mu.Unlock()
	}
	wg.Wait()
}
