package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// headerServer records the header fields of each request it gets.
func headerServer(t *testing.T) (*httptest.Server, chan http.Header) {
	t.Helper()
	got := make(chan http.Header, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Write([]byte("ok\n"))
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// -H adds, replaces and removes fields; -A and -e set User-Agent and
// Referer; @FILE reads fields one a line.
func TestHeaderOptions(t *testing.T) {
	srv, got := headerServer(t)
	file := filepath.Join(t.TempDir(), "h.txt")
	os.WriteFile(file, []byte("X-From-File: yes\r\n\nAccept-Encoding:\n"), 0o644)
	for _, tt := range []struct {
		args   []string
		want   map[string]string
		absent []string
	}{
		{[]string{"-H", "X-A: 1", "-H", "x-a: 2", "-A", "agent/1", "-e", "http://127.0.0.1/from"},
			map[string]string{"X-A": "1", "User-Agent": "agent/1", "Referer": "http://127.0.0.1/from", "Accept-Encoding": "gzip, br, zstd"}, nil},
		{[]string{"-H", "User-Agent:", "-H", "Accept-Encoding:"}, nil, []string{"User-Agent", "Accept-Encoding"}},
		{[]string{"--header=User-Agent: mine"}, map[string]string{"User-Agent": "mine"}, nil},
		{[]string{"-H", "@" + file}, map[string]string{"X-From-File": "yes"}, []string{"Accept-Encoding"}},
		{[]string{"-H", "X-Gone:", "-H", "X-Gone: back"}, map[string]string{"X-Gone": "back"}, nil},
	} {
		out, errs, code := fetchCmd(t, "", append(tt.args, srv.URL+"/")...)
		if code != 0 || out != "ok\n" {
			t.Errorf("%q: exit %d, %q %q", tt.args, code, out, errs)
			continue
		}
		h := <-got
		for k, v := range tt.want {
			if h.Get(k) != v {
				t.Errorf("%q: server got %s: %q, want %q", tt.args, k, h.Get(k), v)
			}
		}
		if len(tt.args) > 1 && tt.args[1] == "X-A: 1" && len(h.Values("X-A")) != 2 {
			t.Errorf("%q: X-A values %q, want both", tt.args, h.Values("X-A"))
		}
		for _, k := range tt.absent {
			if v, ok := h[k]; ok {
				t.Errorf("%q: server got %s: %q, want none", tt.args, k, v)
			}
		}
	}
}

// A header that -H cannot set, or that is malformed, is a usage error,
// as is an option a URL's scheme would ignore; nothing is sent.
func TestHeaderUsageErrors(t *testing.T) {
	srv, got := headerServer(t)
	file := filepath.Join(t.TempDir(), "f.txt")
	os.WriteFile(file, []byte("data\n"), 0o644)
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-H", "Host: elsewhere", srv.URL}, "Host field"},
		{[]string{"-H", "Bad Name: x", srv.URL}, "not a token"},
		{[]string{"-H", "NoColon", srv.URL}, "NAME: VALUE"},
		{[]string{"-H", "@" + file + ".missing", srv.URL}, "no such file"},
		{[]string{"-d", "a=1", srv.URL}, "does not send request bodies"},
		{[]string{"-H", "X: 1", "file://" + file}, "-H/--header means something for http(s): URLs only"},
		{[]string{"-e", "http://127.0.0.1/", "file://" + file}, "--referer"},
		{[]string{"-A", "x", "file://" + file}, "--user-agent"},
		{[]string{"-d", "hi", "file://" + file}, "mailto: URLs only"},
	} {
		out, errs, code := fetchCmd(t, "", tt.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tt.msg) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, out, errs, tt.msg)
		}
	}
	select {
	case h := <-got:
		t.Errorf("the server got a request: %v", h)
	default:
	}
}
