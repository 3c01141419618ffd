package http

import (
	"net/http"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// TestRemoveHeader: a Header field whose values are all empty removes the
// handler's own field of that name (curl's -H "Name:"), and no empty field
// goes out; the plan says the same as the wire.
func TestRemoveHeader(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Write([]byte("ok"))
	})
	for _, tt := range []struct {
		name   string
		header http.Header
		absent []string
		want   map[string]string
	}{
		{"defaults", nil, nil, map[string]string{"User-Agent": DefaultUserAgent, "Accept-Encoding": acceptEncoding}},
		{"removed", http.Header{"User-Agent": {""}, "Accept-Encoding": {""}, "X-Gone": {""}, "X-Kept": {"1"}},
			[]string{"User-Agent", "Accept-Encoding", "X-Gone"}, map[string]string{"X-Kept": "1"}},
		{"lower case", http.Header{"user-agent": {""}}, []string{"User-Agent"}, map[string]string{"Accept-Encoding": acceptEncoding}},
	} {
		h := newHandler(t)
		req := &fetch.Request{URL: parse(t, srv.URL+"/x"), Header: tt.header}
		if _, body, err := get(t, h, req); err != nil || string(body) != "ok" {
			t.Fatalf("%s: %q, %v", tt.name, body, err)
		}
		hd := <-got
		for _, k := range tt.absent {
			if v, ok := hd[k]; ok {
				t.Errorf("%s: server got %s: %q, want none", tt.name, k, v)
			}
		}
		for k, v := range tt.want {
			if hd.Get(k) != v {
				t.Errorf("%s: server got %s: %q, want %q", tt.name, k, hd.Get(k), v)
			}
		}
		plan, err := h.Plan(req)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range plan {
			for _, k := range tt.absent {
				if strings.HasPrefix(strings.ToLower(l), strings.ToLower(k)+":") {
					t.Errorf("%s: plan has %q", tt.name, l)
				}
			}
		}
	}
}
