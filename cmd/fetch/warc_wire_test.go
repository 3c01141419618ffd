package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// rawServer answers HTTP/1.1 requests on 127.0.0.1 with the replies it is
// given by path, byte for byte, and keeps each request's head as it came.
type rawServer struct {
	ln      net.Listener
	replies map[string]string
	mu      sync.Mutex
	got     []string
	wg      sync.WaitGroup
}

func newRawServer(t *testing.T, replies map[string]string) *rawServer {
	return newRawServerTLS(t, replies, nil)
}

// newRawServerTLS is newRawServer speaking TLS under cfg (plain when nil).
func newRawServerTLS(t *testing.T, replies map[string]string, cfg *tls.Config) *rawServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	s := &rawServer{ln: ln, replies: replies}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					var head bytes.Buffer
					tr := textproto.NewReader(bufio.NewReader(&teeReader{br, &head}))
					line, err := tr.ReadLine()
					if err != nil {
						return
					}
					if _, err := tr.ReadMIMEHeader(); err != nil {
						return
					}
					s.mu.Lock()
					s.got = append(s.got, head.String())
					s.mu.Unlock()
					path := strings.Fields(line)[1]
					reply, ok := s.replies[path]
					if !ok {
						reply = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
					}
					if _, err := c.Write([]byte(reply)); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

// teeReader reads r one byte at a time (so that nothing past the head is
// taken from it), copying to w.
type teeReader struct {
	r *bufio.Reader
	w *bytes.Buffer
}

func (t *teeReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	b, err := t.r.ReadByte()
	if err != nil {
		return 0, err
	}
	p[0] = b
	t.w.WriteByte(b)
	return 1, nil
}

// TestWARCWireHeads: the request and response records of --warc-file hold
// the heads as they went over the connection (issue 25): a reply's ETag
// stays "ETag", its fields stay in the server's order, Connection:
// keep-alive stays, for the redirect too; the request is what the server
// received; WARC-Protocol says http/1.1. The redirect's small body is
// recorded whole. A chunked reply's head loses its Transfer-Encoding
// field, its body recorded without the chunking.
func TestWARCWireHeads(t *testing.T) {
	t.Run("http", func(t *testing.T) { testWARCWireHeads(t, nil) })
	// Over https (HTTP/1.1, no --http2) the records hold the decrypted
	// exchange as it went over the connection, the same.
	t.Run("https", func(t *testing.T) {
		srv := httptest.NewUnstartedServer(nil)
		srv.StartTLS() // for its certificate
		srv.Close()
		testWARCWireHeads(t, &tls.Config{Certificates: srv.TLS.Certificates})
	})
	// Through a proxy (an HTTP CONNECT tunnel, and a SOCKS5 one) https
	// goes over the own client too: the records hold the bytes the
	// server received and sent, not heads rendered by net/http.
	for _, kind := range []string{"http", "socks5"} {
		t.Run("https through a "+kind+" proxy", func(t *testing.T) {
			srv := httptest.NewUnstartedServer(nil)
			srv.StartTLS()
			srv.Close()
			px := fetchtest.NewProxy(t, fetchtest.ProxyConfig{Kind: kind, User: "u", Password: "p w"})
			testWARCWireHeads(t, &tls.Config{Certificates: srv.TLS.Certificates}, "-x", px.URL.String())
			asked := px.Asked()
			if len(asked) == 0 {
				t.Fatal("the proxy was not asked for anything")
			}
			for _, a := range asked {
				if kind == "http" && !strings.HasPrefix(a, "CONNECT 127.0.0.1:") || kind == "socks5" && !strings.HasPrefix(a, "127.0.0.1:") {
					t.Errorf("the proxy was asked for %q, want a tunnel to 127.0.0.1", a)
				}
			}
		})
	}
}

func testWARCWireHeads(t *testing.T, cfg *tls.Config, args ...string) {
	redirect := "HTTP/1.1 302 Found\r\nX-Zulu: z\r\nLocation: /final\r\nX-Alpha: a\r\nContent-Length: 6\r\nConnection: keep-alive\r\n\r\nmoved\n"
	final := "HTTP/1.1 200 OK\r\nServer: raw\r\nETag: \"v1\"\r\nContent-Type: text/plain\r\nX-Zulu: z\r\nConnection: keep-alive\r\nX-Alpha: a\r\nContent-Length: 6\r\n\r\n"
	chunked := "HTTP/1.1 200 OK\r\nETag: \"c\"\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n"
	srv := newRawServerTLS(t, map[string]string{
		"/start":   redirect,
		"/final":   final + "hello\n",
		"/chunked": chunked + "3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n",
	}, cfg)
	base := "http://" + srv.ln.Addr().String()
	if cfg != nil {
		base = "https://" + srv.ln.Addr().String()
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "wire.warc")
	stdout, stderr, code := fetchCmd(t, "", append(args, "-k", "--warc-file", file, base+"/start", base+"/chunked")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "hello\nabcdef" {
		t.Errorf("stdout %q", stdout)
	}
	w := readWARCFile(t, file)
	if strings.Contains(w, "WARC-Truncated") {
		t.Error("a record is truncated: the redirect's small body was not kept")
	}
	for _, want := range []string{
		"\r\n\r\n" + redirect + "\r\n\r\n",
		"\r\n\r\n" + final + "hello\n\r\n\r\n",
		"\r\n\r\nHTTP/1.1 200 OK\r\nETag: \"c\"\r\nContent-Type: text/plain\r\n\r\nabcdef\r\n\r\n",
		"WARC-Protocol: http/1.1\r\n",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("the WARC file lacks %q:\n%s", want, w)
		}
	}
	// Over TLS each of the 6 records (3 exchanges) names its version too.
	want := 0
	if cfg != nil {
		want = 6
	}
	if n := strings.Count(w, "WARC-Protocol: tls/1.3\r\n"); n != want {
		t.Errorf("%d records say WARC-Protocol: tls/1.3, want %d", n, want)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.got) != 3 {
		t.Fatalf("the server got %d requests, want 3", len(srv.got))
	}
	for _, req := range srv.got {
		if !strings.Contains(w, "\r\n\r\n"+req+"\r\n\r\n") {
			t.Errorf("the WARC file lacks the request as the server received it: %q", req)
		}
	}
}

// A redirect's body longer than fetch.MaxHopBody is not kept: its record
// says WARC-Truncated, and the resource it led to is fetched all the same.
func TestWARCLongRedirectBody(t *testing.T) {
	long := strings.Repeat("x", 1<<17)
	srv := newRawServer(t, map[string]string{
		"/start": "HTTP/1.1 301 Moved Permanently\r\nLocation: /final\r\nContent-Length: " + strconv.Itoa(len(long)) + "\r\n\r\n" + long,
		"/final": "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nend",
	})
	file := filepath.Join(t.TempDir(), "long.warc")
	stdout, stderr, code := fetchCmd(t, "", "--warc-file", file, "http://"+srv.ln.Addr().String()+"/start")
	if code != 0 || stdout != "end" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
	}
	w := readWARCFile(t, file)
	if n := strings.Count(w, "WARC-Truncated: unspecified\r\n"); n != 1 || strings.Contains(w, long[:fetch.MaxHopBody+1]) {
		t.Errorf("%d truncated records, want the redirect's alone, without its body", n)
	}
}

// An https exchange's WARC-Protocol says which protocol went over the
// connection: h2 with --http2 (whose heads, frames that net/http parses,
// are rendered from the Resource as HTTP/1.1), http/1.1 without (the own
// client's heads as sent, see TestWARCWireHeads); and a second
// WARC-Protocol names the TLS version.
func TestWARCProtocolRendered(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "tls")
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	for _, tt := range []struct {
		args  []string
		proto string
	}{
		{nil, "http/1.1"},
		{[]string{"--http2"}, "h2"},
	} {
		file := filepath.Join(t.TempDir(), "tls.warc")
		args := append([]string{"-k", "--warc-file", file}, tt.args...)
		stdout, stderr, code := fetchCmd(t, "", append(args, srv.URL+"/x")...)
		if code != 0 || stdout != "tls" {
			t.Fatalf("%v: exit %d, stdout %q: %s", tt.args, code, stdout, stderr)
		}
		w := readWARCFile(t, file)
		for _, proto := range []string{tt.proto, "tls/1.3"} {
			if n := strings.Count(w, "WARC-Protocol: "+proto+"\r\n"); n != 2 {
				t.Errorf("%v: %d records say WARC-Protocol: %s, want the request and the response", tt.args, n, proto)
			}
		}
		if !strings.Contains(w, "GET /x HTTP/1.1\r\n") || !strings.Contains(w, "\r\n\r\ntls\r\n\r\n") {
			t.Errorf("%v: the records lack the rendered request line or the body:\n%s", tt.args, w)
		}
	}
}
