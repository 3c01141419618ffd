package http

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// rawServer accepts connections on 127.0.0.1:0; for each it reads one
// request's header and writes reply, then closes the connection (or, when
// hold is set, waits for the test to end first). It returns the base URL.
func rawServer(t *testing.T, reply string, hold bool) string {
	t.Helper()
	done := make(chan struct{})
	addr := fetchtest.Serve(t, rawReply(reply, hold, done))
	t.Cleanup(func() { close(done) }) // before Serve's cleanup waits
	return "http://" + addr
}

// rawMemServer is rawServer on fetchtest.Pipes, for a test in a synctest
// bubble: fetch its URLs with memClient(p, h).
func rawMemServer(t *testing.T, reply string, hold bool) (string, *fetchtest.Pipes) {
	t.Helper()
	done := make(chan struct{})
	base, l := memServe(t, rawReply(reply, hold, done))
	t.Cleanup(func() { close(done) })
	return base, l
}

// rawReply is rawServer's answer to a connection; with hold it keeps the
// connection until done is closed.
func rawReply(reply string, hold bool, done <-chan struct{}) func(net.Conn) {
	return func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			line, err := br.ReadString('\n')
			if err != nil || line == "\r\n" {
				break
			}
		}
		io.WriteString(c, reply)
		if hold {
			<-done
		}
	}
}

func TestCutBodies(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		tests := []struct {
			name, reply string
			kind        fetch.Kind // of the read error; 0: clean end
			want        string
		}{
			{"short Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789", fetch.Incomplete, "0123456789"},
			{"chunked cut in a chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n01234", fetch.Incomplete, "01234"},
			{"chunked cut between chunks", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n", fetch.Incomplete, "01234"},
			{"chunked without the last chunk's CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n0\r\n", fetch.Incomplete, "01234"},
			{"chunked garbage", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\nzz\r\n", fetch.Incomplete, "01234"},
			{"chunked whole", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n0\r\n\r\n", 0, "01234"},
			{"close-delimited", "HTTP/1.0 200 OK\r\n\r\nall until close", 0, "all until close"},
			{"gzip cut", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + string(gz("hello, world")[:15]), fetch.Incomplete, "hello, world"},
			{"gzip corrupt", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + corrupt(gz("hello, world")), fetch.Protocol, "hello, world"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				base := rawServer(t, tt.reply, false)
				h := tc.handler(t)
				_, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/")})
				if tt.kind == 0 {
					if err != nil || string(body) != tt.want {
						t.Fatalf("got %q, %v; want %q", body, err, tt.want)
					}
					return
				}
				if !errors.Is(err, tt.kind) {
					t.Fatalf("got %q, %v (kind %v); want kind %v", body, err, fetch.KindOf(err), tt.kind)
				}
				if !strings.HasPrefix(tt.want, string(body)) {
					t.Errorf("body %q, want a prefix of %q", body, tt.want)
				}
			})
		}
	})
}

func TestMalformedReplies(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		for _, reply := range []string{
			"", // closed without a word
			"SSH-2.0-OpenSSH_9.2\r\n",
			"HTTP/1.1 abc\r\n\r\n",
			"HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n",
			"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 2<<20) + "\r\n\r\n",
			// No status below 100 is an interim reply: the reply after
			// it is smuggled in, and it is no final reply either.
			"HTTP/1.1 099 Early\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled",
			"HTTP/1.1 000 Zero\r\nContent-Length: 8\r\n\r\nsmuggled",
			// A switch to another protocol fetch did not ask for.
			"HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\nnot http",
			"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n",
		} {
			base := rawServer(t, reply, false)
			for _, head := range []bool{false, true} {
				_, body, err := get(t, tc.handler(t), &fetch.Request{URL: parse(t, base+"/"), Head: head})
				if !errors.Is(err, fetch.Protocol) {
					t.Errorf("reply %.40q (HEAD %v): %q, %v (kind %v), want kind Protocol", reply, head, body, err, fetch.KindOf(err))
				}
			}
		}
	})
}

func TestDeadlines(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		tests := []struct {
			name, reply string
			inFetch     bool
		}{
			{"silent server", "", true},
			{"headers never end", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n", true},
			{"body stalls", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234", false},
			{"chunked stalls", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n", false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				// On pipes in a bubble the idle timeout runs on the
				// bubble's clock: it ends the wait exactly when due, and
				// the test takes no time.
				synctest.Test(t, func(t *testing.T) {
					base, l := rawMemServer(t, tt.reply, true)
					c := memClient(l, tc.handler(t))
					start := time.Now()
					res, err := c.Do(context.Background(), &fetch.Request{URL: parse(t, base+"/"), IdleTimeout: 3 * time.Second})
					if tt.inFetch {
						if !errors.Is(err, fetch.Timeout) {
							t.Fatalf("Fetch: %v (kind %v), want kind Timeout", err, fetch.KindOf(err))
						}
					} else {
						if err != nil {
							t.Fatalf("Fetch: %v", err)
						}
						defer res.Body.Close()
						b, err := io.ReadAll(res.Body)
						if !errors.Is(err, fetch.Timeout) || string(b) != "01234" {
							t.Fatalf("ReadAll: %q, %v (kind %v), want the first bytes and kind Timeout", b, err, fetch.KindOf(err))
						}
					}
					if d := time.Since(start); d != 3*time.Second {
						t.Errorf("the stall ended after %v, want the idle timeout, 3s", d)
					}
				})
			})
		}
	})
}

func TestContextDeadline(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		base := rawServer(t, "", true)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := tc.handler(t).Fetch(ctx, &fetch.Request{URL: parse(t, base+"/")})
		if !errors.Is(err, fetch.Timeout) {
			t.Fatalf("Fetch past the context's deadline: %v (kind %v), want Timeout", err, fetch.KindOf(err))
		}
	})
}

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, s)
	w.Close()
	return b.Bytes()
}

func corrupt(b []byte) string {
	c := bytes.Clone(b)
	c[len(c)-8] ^= 0xff // the CRC-32

	return string(c)
}

func TestGzip(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		text := strings.Repeat("all work and no play makes jack a dull boy\n", 2000)
		packed := gz(text)
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Accept-Encoding") != acceptEncoding {
				io.WriteString(w, text)
				return
			}
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", strconv.Itoa(len(packed)))
			w.Write(packed)
		})
		res, body, err := get(t, tc.handler(t), &fetch.Request{URL: parse(t, srv.URL+"/")})
		if err != nil || string(body) != text || res.Size != -1 {
			t.Errorf("decoded: %d bytes, size %d, %v; want %d bytes, size -1", len(body), res.Size, err, len(text))
		}
		raw := tc.set(t, &Handler{Raw: true})
		res, body, err = get(t, raw, &fetch.Request{URL: parse(t, srv.URL+"/")})
		if err != nil || !bytes.Equal(body, packed) || res.Size != int64(len(packed)) || res.Extra["content-encoding"] != "gzip" {
			t.Errorf("raw: %d bytes, size %d, extra %v, %v; want the %d gzip bytes", len(body), res.Size, res.Extra, err, len(packed))
		}
	})
}

func TestResume(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		data := []byte("0123456789abcdefghij")
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/ranged": // net/http serves Range, 206 and 416 by the book
				http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(data))
			case "/no-total": // lighttpd: a 416 without Content-Range
				if r.Header.Get("Range") != "" {
					w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
					return
				}
				w.Header().Set("Content-Length", strconv.Itoa(len(data)))
				if r.Method != http.MethodHead {
					w.Write(data)
				}
			case "/ignores":
				w.Write(data)
			case "/wrong-start":
				w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-%d/%d", len(data)-1, len(data)))
				w.WriteHeader(http.StatusPartialContent)
				w.Write(data)
			case "/bad-range":
				w.Header().Set("Content-Range", "bytes five-six/20")
				w.WriteHeader(http.StatusPartialContent)
			case "/short":
				w.Header().Set("Content-Range", "bytes 5-19/20")
				w.Header().Set("Content-Length", "15")
				w.WriteHeader(http.StatusPartialContent)
				w.Write(data[5:10])
			}
		})
		tests := []struct {
			path   string
			offset int64
			want   string
			off    int64
			size   int64
			kind   fetch.Kind
		}{
			{path: "/ranged", offset: 5, want: "56789abcdefghij", off: 5, size: 15},
			{path: "/ranged", offset: 19, want: "j", off: 19, size: 1},
			{path: "/ranged", offset: 20, want: "", off: 20, size: 0}, // 416, bytes */20: already whole
			{path: "/ranged", offset: 25, kind: fetch.Other},          // 416, the file is shorter
			{path: "/no-total", offset: 20, want: "", off: 20, size: 0},
			{path: "/no-total", offset: 25, kind: fetch.Other},
			{path: "/ignores", offset: 5, want: string(data), off: 0, size: 20},
			{path: "/wrong-start", offset: 5, kind: fetch.Protocol},
			{path: "/bad-range", offset: 5, kind: fetch.Protocol},
			{path: "/short", offset: 5, want: "56789", off: 5, size: 15, kind: fetch.Incomplete},
		}
		h := tc.handler(t)
		for _, tt := range tests {
			res, body, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+tt.path), Offset: tt.offset})
			if tt.kind == fetch.Other && err != nil && !strings.Contains(err.Error(), fmt.Sprintf("byte %d: the resource has 20 bytes", tt.offset)) {
				t.Errorf("%s at %d: %q does not name both sizes", tt.path, tt.offset, err)
			}
			if tt.kind != 0 && !errors.Is(err, tt.kind) {
				t.Errorf("%s at %d: %v (kind %v), want kind %v", tt.path, tt.offset, err, fetch.KindOf(err), tt.kind)
				continue
			}
			if tt.kind == 0 && err != nil {
				t.Errorf("%s at %d: %v", tt.path, tt.offset, err)
				continue
			}
			if res == nil {
				continue
			}
			if tt.size == 0 && res.Status != http.StatusRequestedRangeNotSatisfiable {
				t.Errorf("%s at %d: Status %d, want 416", tt.path, tt.offset, res.Status)
			}
			if string(body) != tt.want || res.Offset != tt.off || res.Size != tt.size {
				t.Errorf("%s at %d: %q offset %d size %d; want %q offset %d size %d", tt.path, tt.offset, body, res.Offset, res.Size, tt.want, tt.off, tt.size)
			}
		}
	})
}

// TestDrippedHeader checks that the reply's header block as a whole must
// arrive within the idle timeout: a server that sends it a byte at a time,
// each well within the timeout, is cut off.
func TestDrippedHeader(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		synctest.Test(t, func(t *testing.T) {
			stop := make(chan struct{})
			base, l := memServe(t, func(c net.Conn) {
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Drip: ")
				tick := time.NewTicker(50 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := c.Write([]byte("x")); err != nil {
							return
						}
					}
				}
			})
			t.Cleanup(func() { close(stop) })
			c := memClient(l, tc.handler(t))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			res, err := c.Do(ctx, &fetch.Request{URL: parse(t, base+"/"), IdleTimeout: 500 * time.Millisecond})
			if err == nil {
				res.Body.Close()
			}
			if !errors.Is(err, fetch.Timeout) || ctx.Err() != nil {
				t.Fatalf("Fetch of a dripped header: %v (kind %v, context %v), want kind Timeout from the idle timeout", err, fetch.KindOf(err), ctx.Err())
			}
			if d := time.Since(start); d != 500*time.Millisecond {
				t.Errorf("the dripped header was cut off after %v, want the idle timeout, 500ms", d)
			}
		})
	})
}
