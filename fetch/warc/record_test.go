package warc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parser{Lenient: true}.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestTeeResource(t *testing.T) {
	for _, tc := range []struct {
		url, mediaType string
		kind           fetch.ResourceKind
		wantType       string
	}{
		{"gopher://h/1/", "", fetch.ResourceMenu, "application/gopher-menu"},
		{"ftp://h/pub/", "", fetch.ResourceDirectory, "text/plain"},
		{"ftp://h/a.bin", "", fetch.ResourceFile, "application/octet-stream"},
		{"gopher://h/0/a", "text/plain; charset=utf-8", fetch.ResourceFile, "text/plain; charset=utf-8"},
		{"news:a@b", "", fetch.ResourceArticle, "message/rfc822"},
	} {
		var out bytes.Buffer
		w := NewWriter(&out, Options{})
		body := "the body of " + tc.url
		res := &fetch.Resource{URL: mustParse(t, tc.url), Kind: tc.kind, MediaType: tc.mediaType, Size: -1, Body: io.NopCloser(strings.NewReader(body))}
		rc := w.Tee(&fetch.Request{URL: res.URL}, res)
		got, err := io.ReadAll(rc)
		if err != nil || string(got) != body {
			t.Fatalf("%s: read %q, %v", tc.url, got, err)
		}
		if len(readAll(t, out.Bytes())) != 0 {
			t.Fatalf("%s: records written before Close", tc.url)
		}
		if err := rc.Close(); err != nil {
			t.Fatal(err)
		}
		recs := readAll(t, out.Bytes())
		if len(recs) != 2 {
			t.Fatalf("%s: %d records, want 2", tc.url, len(recs))
		}
		r := recs[1]
		if r.get("WARC-Type") != "resource" || r.get("WARC-Target-URI") != tc.url || r.get("Content-Type") != tc.wantType || string(r.block) != body || r.get("WARC-Truncated") != "" {
			t.Errorf("%s: record %v %q", tc.url, r.fields, r.block)
		}
		if err := checkDigests(r); err != nil {
			t.Errorf("%s: %v", tc.url, err)
		}
	}
}

func TestTeeRedactsPassword(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{})
	res := &fetch.Resource{URL: mustParse(t, "ftp://joe:secret@h/f"), Size: 1, Body: io.NopCloser(strings.NewReader("x"))}
	rc := w.Tee(nil, res)
	io.ReadAll(rc)
	rc.Close()
	if strings.Contains(out.String(), "secret") {
		t.Errorf("the password is in the WARC file:\n%s", out.String())
	}
}

type failingBody struct{ io.Reader }

func (failingBody) Close() error { return fetch.Errorf(fetch.Incomplete, "no 226 reply") }

func TestTeeTruncated(t *testing.T) {
	for _, tc := range []struct {
		name     string
		body     io.ReadCloser
		size     int64
		readAll  bool
		want     string
		closeErr bool
	}{
		{"complete", io.NopCloser(strings.NewReader("abcdef")), 6, true, "", false},
		{"closed early", io.NopCloser(strings.NewReader("abcdef")), 6, false, TruncatedUnspecified, false},
		{"close fails", failingBody{strings.NewReader("abcdef")}, -1, true, TruncatedDisconnect, true},
		{"read fails", io.NopCloser(io.MultiReader(strings.NewReader("abc"), iotestErr{})), -1, true, TruncatedDisconnect, false},
	} {
		var out bytes.Buffer
		w := NewWriter(&out, Options{})
		res := &fetch.Resource{URL: mustParse(t, "ftp://h/f"), Size: tc.size, Body: tc.body}
		rc := w.Tee(nil, res)
		if tc.readAll {
			io.ReadAll(rc)
		} else {
			rc.Read(make([]byte, 2))
		}
		err := rc.Close()
		if (err != nil) != tc.closeErr {
			t.Errorf("%s: Close = %v", tc.name, err)
		}
		recs := readAll(t, out.Bytes())
		if len(recs) != 2 || recs[1].get("WARC-Truncated") != tc.want {
			t.Errorf("%s: WARC-Truncated %q, want %q", tc.name, recs[len(recs)-1].get("WARC-Truncated"), tc.want)
		}
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestTeeHTTP(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{Gzip: true})
	body := "\x1f\x8b gzip bytes as sent"
	res := &fetch.Resource{
		URL:    mustParse(t, "http://example.test:8080/a/b?c=d"),
		Status: 200,
		Header: http.Header{"Content-Type": {"text/plain"}, "Content-Encoding": {"gzip"}},
		Extra:  map[string]string{fetch.ExtraHTTPStatus: "200 OK", fetch.ExtraHTTPVersion: "HTTP/1.1"},
		Size:   -1,
		Body:   io.NopCloser(strings.NewReader(body)),
	}
	req := &fetch.Request{URL: res.URL, Header: http.Header{"Accept": {"text/html"}}}
	rc := w.Tee(req, res)
	io.ReadAll(rc)
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, out.Bytes())
	if len(recs) != 3 {
		t.Fatalf("%d records, want warcinfo, request, response", len(recs))
	}
	rq, rs := recs[1], recs[2]
	wantReq := "GET /a/b?c=d HTTP/1.1\r\nAccept: text/html\r\nHost: example.test:8080\r\n\r\n"
	if rq.get("WARC-Type") != "request" || string(rq.block) != wantReq {
		t.Errorf("request %v %q, want block %q", rq.fields, rq.block, wantReq)
	}
	wantResp := "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Type: text/plain\r\n\r\n" + body
	if rs.get("WARC-Type") != "response" || string(rs.block) != wantResp {
		t.Errorf("response %v %q, want block %q", rs.fields, rs.block, wantResp)
	}
	if rq.get("WARC-Concurrent-To") != rs.get("WARC-Record-ID") || rs.get("WARC-Concurrent-To") != rq.get("WARC-Record-ID") {
		t.Error("request and response do not name each other")
	}
	for i, r := range recs {
		if err := checkDigests(r); err != nil {
			t.Errorf("record %d: %v", i, err)
		}
	}
}

// TestDoRecordsPeerAddress fetches through a Client whose dial hook is the
// Writer's: the record names the address dialed.
func TestDoRecordsPeerAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("served\n"))
			c.Close()
		}
	}()
	var out bytes.Buffer
	w := NewWriter(&out, Options{})
	c := &fetch.Client{}
	c.DialContext = w.Dial(c.DialContext)
	c.Register("gopher", fetch.HandlerFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		conn, err := wire.Dial(ctx, req, "tcp", req.URL.HostPort())
		if err != nil {
			return nil, err
		}
		return &fetch.Resource{Size: -1, Body: conn}, nil
	}))
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	u := mustParse(t, "gopher://localhost:"+port+"/0/x")
	res, err := w.Do(context.Background(), c, &fetch.Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(res.Body)
	if err := res.Body.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, out.Bytes())
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	if ip := recs[1].get("WARC-IP-Address"); ip != "127.0.0.1" && ip != "::1" {
		t.Errorf("WARC-IP-Address %q, want the loopback address dialed", ip)
	}
	if string(recs[1].block) != "served\n" {
		t.Errorf("block %q", recs[1].block)
	}
}
