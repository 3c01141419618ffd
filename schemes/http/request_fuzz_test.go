package http

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// FuzzWriteRequest checks that the own client writes the request the
// Handler makes for a URL, its credentials and a header field of the
// caller's, byte for byte as net/http's Transport writes it: the request
// line and fields by http.Request.Write (the Transport adds no field of
// its own: the Handler asks for and undoes content codings itself). The
// two requests are made from the Handler's fields as Handler.once makes
// them for each transport. Its corpus is in
// testdata/fuzz/FuzzWriteRequest.
func FuzzWriteRequest(f *testing.F) {
	for _, s := range []struct {
		url, name, value, ua string
		head, raw            bool
		offset               int64
	}{
		{"http://example.org/", "", "", "", false, false, 0},
		{"http://example.org:8080/a%20b/c;p?q=1&r=%2F", "X-Trace", "1", "", false, false, 0},
		{"http://u:p@[::1]/f?", "accept-encoding", "br", "probe/1", false, false, 0},
		{"http://h/f", "If-None-Match", `"x"`, "", true, false, 0},
		{"http://h/f", "x-a", " spaced \t", "", false, true, 100},
		{"http://h/f", "User-Agent", "", "", false, false, 0},
		{"http://h/f", "Cookie", "a=1", "", false, false, -1},
		{"http://h/f", "X-Fold", "a\r\n b", "", false, false, 0},
		{"http://h/f", "Range", "bytes=1-", "", false, false, 5},
		{"http://h/%7Efoo/./../x", "Host", "evil", "", false, false, 0},
		{"http://127.0.0.1:1/", "Authorization", "Bearer t", "", false, false, 0},
	} {
		f.Add(s.url, s.name, s.value, s.ua, s.head, s.raw, s.offset)
	}
	f.Fuzz(func(t *testing.T, rawURL, name, value, ua string, head, raw bool, offset int64) {
		u, err := url.ParseLenient(rawURL)
		if err != nil || u.Scheme != "http" || !plainHost(u.Host) || checkLine(u) != nil {
			return // the own client is not used, or nothing is sent
		}
		req := &fetch.Request{URL: u, Head: head, Offset: offset, Header: http.Header{}}
		if name != "" {
			req.Header[name] = []string{value}
		}
		h := &Handler{UserAgent: ua, Raw: raw}
		got, want, ok := bothRequests(t, h, req)
		if ok && got != want {
			t.Errorf("URL %q, field %q: %q\nthe own client writes:\n%q\nnet/http writes:\n%q", rawURL, name, value, got, want)
		}
	})
}

// bothRequests returns the request h makes for req, as the own client
// writes it and as net/http's Transport does; ok is false when the
// Handler refuses it before writing.
func bothRequests(t *testing.T, h *Handler, req *fetch.Request) (own, net string, ok bool) {
	u := req.URL
	method := http.MethodGet
	if req.Head {
		method = http.MethodHead
	}
	offset := req.Offset
	if req.Head || offset < 0 {
		offset = 0
	}
	hs, err := h.headers(req, u, req.Credentials(), offset, req.Head)
	if err != nil {
		return "", "", false
	}
	// As Handler.direct makes it.
	r := &h1Request{method: method, path: u.Path, host: hs[0].value, fields: hs}
	own = string(appendRequest(nil, r))

	// As Handler.once makes it for net/http.
	nu := netURL(u)
	hreq := &http.Request{Method: method, URL: nu, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: make(http.Header), Host: nu.Host}
	for _, hd := range hs {
		if hd.name != "Host" {
			hreq.Header.Add(hd.name, hd.value)
		}
	}
	var b bytes.Buffer
	if err := hreq.Write(&b); err != nil {
		t.Fatalf("net/http refuses the request the own client writes as\n%q\n: %v", own, err)
	}
	net = b.String() // the Transport adds no field: its own decoding is off (see transport)
	return own, net, true
}
