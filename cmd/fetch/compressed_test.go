package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/andybalholm/brotli"
)

// A br body is decoded, with or without --compressed; --raw keeps it;
// --compressed with a URL of another scheme is a usage error.
func TestCompressedBrotli(t *testing.T) {
	var packed bytes.Buffer
	w := brotli.NewWriter(&packed)
	w.Write([]byte("hello, brotli\n"))
	w.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "br")
		w.Write(packed.Bytes())
	}))
	defer srv.Close()
	for _, tt := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{srv.URL + "/"}, "hello, brotli\n", 0},
		{[]string{"--compressed", srv.URL + "/"}, "hello, brotli\n", 0},
		{[]string{"--raw", srv.URL + "/"}, packed.String(), 0},
		{[]string{"--compressed", "gopher://127.0.0.1:1/"}, "", 2},
	} {
		out, errs, code := fetchCmd(t, "", append([]string{"-sS"}, tt.args...)...)
		if code != tt.code || out != tt.want {
			t.Errorf("fetch %q: exit %d, out %q, err %q; want exit %d, %q", tt.args, code, out, errs, tt.code, tt.want)
		}
	}
}
