package http

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// TestErrorBody: with Request.ErrorBody, an error reply's body is copied
// there whole, and the error is still the status's; without, it is not.
func TestErrorBody(t *testing.T) {
	page := strings.Repeat("no such page\n", 10000)
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(page))
	})
	var buf bytes.Buffer
	_, _, err := get(t, newHandler(t), &fetch.Request{URL: parse(t, srv.URL+"/x"), ErrorBody: &buf})
	var re *fetch.ReplyError
	if !errors.Is(err, fetch.NotFound) || !errors.As(err, &re) || re.Code != 404 {
		t.Fatalf("err = %v, want a 404 NotFound", err)
	}
	if buf.String() != page {
		t.Errorf("ErrorBody got %d bytes, want the page's %d", buf.Len(), len(page))
	}
	buf.Reset()
	get(t, newHandler(t), &fetch.Request{URL: parse(t, srv.URL+"/x"), ErrorBody: &buf, Head: true})
	if buf.Len() != 0 {
		t.Errorf("HEAD: ErrorBody got %q", buf.String())
	}
}

// TestErrorBodyHTTPS: the same over net/http's transport, in HTTP/1.1 and
// in HTTP/2.
func TestErrorBodyHTTPS(t *testing.T) {
	page := strings.Repeat("gone\n", 20000)
	srv, trust := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusGone)
		w.Write([]byte(page))
	})
	for _, h2 := range []bool{false, true} {
		h := newHandler(t)
		h.HTTP2 = h2
		var buf bytes.Buffer
		_, _, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+"/x"), ErrorBody: &buf, TLS: trust})
		if !errors.Is(err, fetch.NotFound) || buf.String() != page {
			t.Errorf("HTTP2 %v: err = %v, ErrorBody %d bytes; want NotFound and %d bytes", h2, err, buf.Len(), len(page))
		}
	}
}
