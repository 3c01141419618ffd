package http

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// transportCase is one of the two transports an http URL may go over: the
// package's own HTTP/1.1 client (h1), or net/http's Transport (NetHTTP).
type transportCase struct {
	name    string
	netHTTP bool
}

// transportCases are the transports every test of behaviour meant to be
// the same on both runs on.
var transportCases = []transportCase{{"h1", false}, {"net-http", true}}

// onBoth runs test as a subtest on each transport.
func onBoth(t *testing.T, test func(t *testing.T, tc transportCase)) {
	t.Helper()
	for _, tc := range transportCases {
		t.Run(tc.name, func(t *testing.T) { test(t, tc) })
	}
}

// handler returns a zero Handler on the transport, whose idle connections
// close with the test.
func (tc transportCase) handler(t testing.TB) *Handler {
	return tc.set(t, &Handler{})
}

// set puts h on the transport, and closes its idle connections with the
// test.
func (tc transportCase) set(t testing.TB, h *Handler) *Handler {
	h.NetHTTP = tc.netHTTP
	t.Cleanup(func() { h.Close() })
	return h
}

// TestNetHTTP: with NetHTTP set, an http URL goes through net/http's
// Transport, and the own client is never made; without it, through the
// own client.
func TestNetHTTP(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
	onBoth(t, func(t *testing.T, tc transportCase) {
		h := tc.handler(t)
		var tr strings.Builder
		_, body, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+"/"), Trace: fetch.NewTrace(&tr)})
		if err != nil || string(body) != "hello" {
			t.Fatalf("Fetch: %q, %v", body, err)
		}
		h.mu.Lock()
		own, viaNet := h.plain != nil, len(h.transports) > 0
		h.mu.Unlock()
		if own == tc.netHTTP || viaNet != tc.netHTTP {
			t.Errorf("NetHTTP %v: own client made %v, net/http transport made %v", tc.netHTTP, own, viaNet)
		}
	})
	h := &Handler{NetHTTP: true, Pipeline: 4}
	if n := h.Pipelining(parse(t, srv.URL)); n != 1 {
		t.Errorf("NetHTTP with Pipeline 4: Pipelining = %d, want 1", n)
	}
}
