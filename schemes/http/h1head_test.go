package http

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// headCases are replies, whole or cut, on which readResponse must agree
// with net/http's ReadResponse.
var headCases = []struct {
	name, in string
	method   string // GET when empty
}{
	{name: "plain", in: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok"},
	{name: "LF endings", in: "HTTP/1.1 200 OK\nContent-Length: 2\n\nok"},
	{name: "mixed endings", in: "HTTP/1.1 200 OK\r\nA: 1\nContent-Length: 2\r\n\nok"},
	{name: "no reason", in: "HTTP/1.1 204\r\n\r\n"},
	{name: "spaces before the code", in: "HTTP/1.1   404   Not  Found \r\nContent-Length: 0\r\n\r\n"},
	{name: "reason with control bytes", in: "HTTP/1.1 200 O\x01K\r\nContent-Length: 0\r\n\r\n"},
	{name: "HTTP/1.0", in: "HTTP/1.0 200 OK\r\n\r\nto the end"},
	{name: "HTTP/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 3\r\n\r\nabc"},
	{name: "HTTP/1.0 chunked ignored", in: "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"},
	{name: "HTTP/2.0 line", in: "HTTP/2.0 200 OK\r\nContent-Length: 1\r\n\r\nx"},
	{name: "HTTP/0.9 line", in: "HTTP/0.9 200 OK\r\nContent-Length: 1\r\n\r\nx"},
	{name: "Connection: close", in: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"},
	{name: "Connection: close among others", in: "HTTP/1.1 200 OK\r\nConnection: Upgrade, CLOSE\r\nContent-Length: 2\r\n\r\nok"},
	{name: "Connection: keep-alive", in: "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok"},
	{name: "until close", in: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it"},
	{name: "chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n3;x=y\r\n!!!\r\n0\r\n\r\n"},
	{name: "chunked in capitals", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: CHUNKED\r\n\r\n2\r\nok\r\n0\r\n\r\n"},
	{name: "chunked and Content-Length", in: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"},
	{name: "chunked with a trailer", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n2\r\nok\r\n0\r\nX-Sum: 1\r\n\r\n"},
	{name: "chunked with a bad trailer key", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum, content-length\r\n\r\n2\r\nok\r\n0\r\n\r\n"},
	{name: "Trailer without chunked", in: "HTTP/1.1 200 OK\r\nTrailer: Content-Length\r\nContent-Length: 2\r\n\r\nok"},
	{name: "chunked, trailer cut", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-Sum: 1\r\n"},
	{name: "chunked, no final CRLF", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n"},
	{name: "chunked cut", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n5\r\nab"},
	{name: "chunked malformed", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n"},
	{name: "two transfer encodings", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"},
	{name: "unsupported transfer encoding", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"},
	{name: "duplicate equal Content-Length", in: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length:  2 \r\n\r\nok"},
	{name: "duplicate Content-Length", in: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok!"},
	{name: "Content-Length list", in: "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok"},
	{name: "bad Content-Length", in: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"},
	{name: "huge Content-Length", in: "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n"},
	{name: "empty Content-Length", in: "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n"},
	{name: "Content-Length cut", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok"},
	{name: "Content-Length 0", in: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"},
	{name: "204 with Content-Length", in: "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"},
	{name: "304", in: "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\nContent-Length: 5\r\n\r\n"},
	{name: "304 chunked", in: "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n"},
	{name: "304 bad Content-Length", in: "HTTP/1.1 304 Not Modified\r\nContent-Length: x\r\n\r\n"},
	{name: "100", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"},
	{name: "101", in: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"},
	{name: "HEAD", method: "HEAD", in: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"},
	{name: "HEAD chunked", method: "HEAD", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 7\r\n\r\n"},
	{name: "HEAD without length", method: "HEAD", in: "HTTP/1.1 200 OK\r\n\r\n"},
	{name: "HEAD bad length", method: "HEAD", in: "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n"},
	{name: "duplicate fields", in: "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nX-A: 1\r\nset-cookie: b=2\r\nSET-COOKIE: c=3\r\nContent-Length: 0\r\n\r\n"},
	{name: "names canonical", in: "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nx-foo-bar: 1\r\nWWW-authenticate: Basic\r\netag: \"e\"\r\nX_Under: 1\r\nContent-Length: 0\r\n\r\n"},
	{name: "name with a space", in: "HTTP/1.1 200 OK\r\nX Foo: 1\r\nx-bar : 2\r\nContent-Length: 0\r\n\r\n"},
	{name: "name with a bad byte", in: "HTTP/1.1 200 OK\r\nX\x01Foo: 1\r\n\r\n"},
	{name: "name with a slash", in: "HTTP/1.1 200 OK\r\nX/Foo: 1\r\n\r\n"},
	{name: "empty name", in: "HTTP/1.1 200 OK\r\n: 1\r\n\r\n"},
	{name: "empty value", in: "HTTP/1.1 200 OK\r\nX-Empty:\r\nX-Space:   \r\nContent-Length: 0\r\n\r\n"},
	{name: "value spaces", in: "HTTP/1.1 200 OK\r\nX-A: \t a  b \t\r\nContent-Length: 0\r\n\r\n"},
	{name: "value with colon", in: "HTTP/1.1 200 OK\r\nLocation: http://x:80/a:b\r\nContent-Length: 0\r\n\r\n"},
	{name: "value with obs-text", in: "HTTP/1.1 200 OK\r\nX-A: caf\xc3\xa9\r\nContent-Length: 0\r\n\r\n"},
	{name: "value with a control byte", in: "HTTP/1.1 200 OK\r\nX-A: a\x00b\r\n\r\n"},
	{name: "value with a control byte, name in lower case", in: "HTTP/1.1 200 OK\r\nx-a: a\x00b\r\n\r\n"},
	{name: "value with DEL", in: "HTTP/1.1 200 OK\r\nX-A: a\x7fb\r\n\r\n"},
	{name: "value with a bare CR", in: "HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n"},
	{name: "line ending CR CR LF", in: "HTTP/1.1 200 OK\r\nX-A: a\r\r\n\r\n"},
	{name: "missing colon", in: "HTTP/1.1 200 OK\r\nX-A 1\r\n\r\n"},
	{name: "missing colon, spaces", in: "HTTP/1.1 200 OK\r\nX-A 1  \r\n\r\n"},
	{name: "folded", in: "HTTP/1.1 200 OK\r\nX-A: one\r\n two\r\n\t three \r\nX-B: 2\r\nContent-Length: 0\r\n\r\n"},
	{name: "folded empty", in: "HTTP/1.1 200 OK\r\nX-A: one\r\n   \r\nContent-Length: 0\r\n\r\n"},
	{name: "folded bad byte", in: "HTTP/1.1 200 OK\r\nX-A: one\r\n t\x01wo\r\n\r\n"},
	{name: "folded name", in: "HTTP/1.1 200 OK\r\nX-A\r\n : one\r\nContent-Length: 0\r\n\r\n"},
	{name: "first field folded", in: "HTTP/1.1 200 OK\r\n X-A: 1\r\n\r\n"},
	{name: "first field folded long", in: "HTTP/1.1 200 OK\r\n\t" + strings.Repeat("x", 100) + "\r\n\r\n"},
	{name: "Pragma no-cache", in: "HTTP/1.1 200 OK\r\nPragma: no-cache\r\nContent-Length: 0\r\n\r\n"},
	{name: "Pragma with Cache-Control", in: "HTTP/1.1 200 OK\r\nPragma: no-cache\r\nCache-Control: max-age=1\r\nContent-Length: 0\r\n\r\n"},
	{name: "long field", in: "HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("v", 3000) + "\r\nContent-Length: 2\r\n\r\nok"},
	{name: "many fields", in: "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Many: 1\r\n", 300) + "Content-Length: 2\r\n\r\nok"},
	{name: "long status line", in: "HTTP/1.1 200 " + strings.Repeat("O", 5000) + "\r\nContent-Length: 2\r\n\r\nok"},

	{name: "empty", in: ""},
	{name: "blank line", in: "\r\n"},
	{name: "no space", in: "HTTP/1.1\r\n\r\n"},
	{name: "two-digit code", in: "HTTP/1.1 20 OK\r\n\r\n"},
	{name: "four-digit code", in: "HTTP/1.1 2000 OK\r\n\r\n"},
	{name: "code not a number", in: "HTTP/1.1 2x0 OK\r\n\r\n"},
	{name: "code with a sign", in: "HTTP/1.1 +20 OK\r\n\r\n"},
	{name: "not HTTP", in: "SSH-2.0-OpenSSH_9.2\r\n\r\n"},
	{name: "bad version", in: "HTTP/1.x 200 OK\r\n\r\n"},
	{name: "lower-case version", in: "http/1.1 200 OK\r\n\r\n"},
	{name: "long version", in: "HTTP/1.10 200 OK\r\n\r\n"},
	{name: "cut in the status line", in: "HTTP/1.1 20"},
	{name: "cut after the status line", in: "HTTP/1.1 200 OK\r\n"},
	{name: "cut status line without its end", in: "HTTP/1.1 200 OK"},
	{name: "cut in a field", in: "HTTP/1.1 200 OK\r\nContent-Le"},
	{name: "cut after a field", in: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"},
	{name: "cut in a CRLF", in: "HTTP/1.1 200 OK\r\nContent-Length: 2\r"},
	{name: "cut in a fold", in: "HTTP/1.1 200 OK\r\nX-A: 1\r\n  two"},
	{name: "cut after a bad line", in: "HTTP/1.1 200 OK\r\nbad line\r\nX-A: 1\r\n"},
	{name: "cut in a bad line", in: "HTTP/1.1 200 OK\r\nbad line"},
	{name: "cut after a bad status line", in: "HTTP/1.1 2000 OK\r\n"},
	{name: "cut in a bad status line", in: "garbage"},
}

// TestReadResponse reads each reply with readResponse and with net/http's
// ReadResponse, from readers that give it whole, a byte at a time, and
// through a buffer smaller than the head: the responses, their bodies and
// their errors must be the same.
func TestReadResponse(t *testing.T) {
	readers := []struct {
		name string
		br   func(string) *bufio.Reader
	}{
		{"whole", func(s string) *bufio.Reader { return bufio.NewReaderSize(strings.NewReader(s), 64<<10) }},
		{"byte by byte", func(s string) *bufio.Reader {
			return bufio.NewReaderSize(iotest.OneByteReader(strings.NewReader(s)), 64<<10)
		}},
		{"small buffer", func(s string) *bufio.Reader { return bufio.NewReaderSize(strings.NewReader(s), 16) }},
		{"half buffer", func(s string) *bufio.Reader { return bufio.NewReaderSize(iotest.HalfReader(strings.NewReader(s)), 64) }},
	}
	for _, tt := range headCases {
		method := tt.method
		if method == "" {
			method = http.MethodGet
		}
		for _, rd := range readers {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				wbr, gbr := rd.br(tt.in), rd.br(tt.in)
				want := describeNext(wbr)(http.ReadResponse(wbr, &http.Request{Method: method}))
				got := describeNext(gbr)(readResponse(gbr, method, nil, nil))
				if got != want {
					t.Errorf("readResponse:\n%s\nnet/http:\n%s", got, want)
				}
			})
		}
	}
}

// FuzzReadResponse checks that readResponse and net/http's ReadResponse
// agree on any input, as TestReadResponse does on its cases: the same
// status, header, framing, body bytes or error, and the same bytes left
// after the body for the next reply (where one framing ends). Its corpus,
// in testdata/fuzz/FuzzReadResponse, holds the edge cases of framing:
// Content-Length against Transfer-Encoding, chunked bodies with
// extensions, trailers and bad sizes, folded and bare-LF fields, 1xx, and
// 204 and 304 with bodies.
func FuzzReadResponse(f *testing.F) {
	for _, tt := range headCases {
		f.Add(tt.in, tt.method == http.MethodHead)
	}
	f.Fuzz(func(t *testing.T, in string, head bool) {
		method := http.MethodGet
		if head {
			method = http.MethodHead
		}
		wbr := bufio.NewReaderSize(strings.NewReader(in), 64<<10)
		gbr := bufio.NewReaderSize(strings.NewReader(in), 64<<10)
		want := describeNext(wbr)(http.ReadResponse(wbr, &http.Request{Method: method}))
		got := describeNext(gbr)(readResponse(gbr, method, nil, nil))
		if got != want {
			t.Errorf("readResponse(%q, nil):\n%s\nnet/http:\n%s", in, got, want)
		}
	})
}

// describeNext returns describe, for a reply read from br, followed by
// what is left in br once the reply and its body were read without error:
// the start of the next reply, where the framing put it. (After an error
// the connection is not read again.)
func describeNext(br *bufio.Reader) func(*http.Response, error) string {
	return func(resp *http.Response, err error) string {
		s := describe(resp, err)
		if err != nil || strings.Contains(s, "; then ") || !strings.HasSuffix(s, ", <nil>") {
			return s
		}
		rest, err := io.ReadAll(br)
		return s + fmt.Sprintf("\nleft %q, %v", rest, err)
	}
}

// describe prints what a reply parses to: its fields, and its body read
// to the end or an error; or the error.
func describe(resp *http.Response, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "proto %q %d.%d status %q code %d\n", resp.Proto, resp.ProtoMajor, resp.ProtoMinor, resp.Status, resp.StatusCode)
	fmt.Fprintf(&b, "length %d close %v te %q nobody %v\n", resp.ContentLength, resp.Close, resp.TransferEncoding, resp.Body == http.NoBody)
	fmt.Fprintf(&b, "header %q\n", resp.Header)
	body, err := io.ReadAll(resp.Body)
	fmt.Fprintf(&b, "body %q, %v", body, err)
	if err != nil {
		// A read after an error does not succeed.
		if n, err2 := resp.Body.Read(make([]byte, 8)); n > 0 || err2 == nil {
			fmt.Fprintf(&b, "; then %d bytes, %v", n, err2)
		}
	}
	return b.String()
}

// TestReadResponseHeader checks the parts of a reply net/http would not
// tell apart: one value per name shares no backing array with another,
// so that appending to one leaves the next alone.
func TestReadResponseHeader(t *testing.T) {
	in := "HTTP/1.1 200 OK\r\nX-A: 1\r\nX-B: 2\r\nX-C: 3\r\nContent-Length: 0\r\n\r\n"
	resp, err := readResponse(bufio.NewReader(strings.NewReader(in)), http.MethodGet, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Header.Add("X-A", "again")
	want := http.Header{"X-A": {"1", "again"}, "X-B": {"2"}, "X-C": {"3"}, "Content-Length": {"0"}}
	if !reflect.DeepEqual(resp.Header, want) {
		t.Errorf("header %v, want %v", resp.Header, want)
	}
}

// TestReadResponseNext: a reply framed by its length leaves the next one
// in the reader, whole.
func TestReadResponseNext(t *testing.T) {
	in := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n!\r\n0\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"
	br := bufio.NewReader(strings.NewReader(in))
	for i, want := range []struct {
		code int
		body string
	}{{200, "ok"}, {404, "!"}, {204, ""}} {
		resp, err := readResponse(br, http.MethodGet, nil, nil)
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		body, err := io.ReadAll(resp.Body)
		if resp.StatusCode != want.code || string(body) != want.body || err != nil {
			t.Errorf("reply %d: %d %q %v, want %d %q", i, resp.StatusCode, body, err, want.code, want.body)
		}
	}
	if _, err := readResponse(br, http.MethodGet, nil, nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("after the last reply: %v, want io.ErrUnexpectedEOF", err)
	}
}

// TestCanonicalKey: canonicalKey gives the names textproto gives, and
// refuses the ones it refuses.
func TestCanonicalKey(t *testing.T) {
	for _, k := range []string{
		"content-type", "Content-Type", "CONTENT-TYPE", "ETag", "etag", "www-authenticate", "x-foo-bar", "X-FOO-BAR",
		"x--a", "-a", "a-", "x_under", "1-a", "a1b", "X Foo", "x foo", strings.Repeat("ab-", 30), strings.Repeat("AB-", 30) + "x",
		"x/y", "x\x01", "é", "",
		// The names canonicalKey knows by heart.
		"Accept-Ranges", "Age", "Cache-Control", "Connection", "Content-Disposition",
		"Content-Encoding", "Content-Language", "Content-Length", "Content-Location",
		"Content-Range", "Content-Type", "Date", "Etag", "Expires", "Keep-Alive",
		"Last-Modified", "Location", "Server", "Set-Cookie", "Transfer-Encoding", "Vary",
	} {
		got, ok := canonicalKey(k)
		valid := k != "" && strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~ ") == ""
		want := k
		if valid && !strings.Contains(k, " ") {
			want = textproto.CanonicalMIMEHeaderKey(k)
		}
		if ok != valid || ok && got != want {
			t.Errorf("canonicalKey(%q) = %q, %v; want %q, %v", k, got, ok, want, valid)
		}
	}
}
