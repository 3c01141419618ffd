package http

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// pipeServer serves raw HTTP/1.1 with a reader and a writer per
// connection, so that requests pipelined by the client are read while
// earlier replies are still to be written. Each reply's body is the
// request's path; the writer waits delay(path) before it. After the
// reply to the n-th request of a connection (counting from 1), close(n)
// says what to do: 0 keep the connection, 1 close it after the reply
// without a word, 2 say "Connection: close" in the reply and close it.
type pipeServer struct {
	delay func(path string) time.Duration
	close func(n int) int
	body  func(path string) string // nil: the path
	nagle bool                     // write with Nagle's algorithm on, as nginx does
	tls   *tls.Config              // non-nil: speak TLS (https) with it

	accepted atomic.Int32
	mu       sync.Mutex
	peak     int // the most requests read and not yet answered on a connection
}

func (s *pipeServer) start(t *testing.T) string {
	t.Helper()
	addr := fetchtest.Serve(t, func(c net.Conn) {
		s.accepted.Add(1)
		if tc, ok := c.(*net.TCPConn); ok && s.nagle {
			tc.SetNoDelay(false)
		}
		if s.tls != nil {
			c = tls.Server(c, s.tls)
		}
		paths := make(chan string, 64)
		var outstanding atomic.Int32
		go func() {
			defer close(paths)
			br := bufio.NewReader(c)
			for {
				r, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				n := int(outstanding.Add(1))
				s.mu.Lock()
				s.peak = max(s.peak, n)
				s.mu.Unlock()
				paths <- r.URL.Path
			}
		}()
		n := 0
		for path := range paths {
			n++
			if s.delay != nil {
				time.Sleep(s.delay(path))
			}
			how := 0
			if s.close != nil {
				how = s.close(n)
			}
			hdr := ""
			if how == 2 {
				hdr = "Connection: close\r\n"
			}
			body := path
			if s.body != nil {
				body = s.body(path)
			}
			outstanding.Add(-1) // before the reply, which lets the client send more
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n%s", len(body), hdr, body)
			if how != 0 {
				c.Close()
				return
			}
		}
	})
	if s.tls != nil {
		return "https://" + addr
	}
	return "http://" + addr
}

// fetchMany fetches base+"/0" .. base+"/n-1" at once with h and checks
// that each body is its own path.
func fetchMany(t *testing.T, h fetch.Handler, base string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			path := fmt.Sprintf("/%d", i)
			if _, body, err := get(t, h, &fetch.Request{URL: parse(t, base+path)}); err != nil || string(body) != path {
				t.Errorf("%s: got %q, %v", path, body, err)
			}
		})
	}
	wg.Wait()
}

// noPipe reports whether h has stopped pipelining to base's host.
func noPipe(h *Handler, base string) bool {
	p := &h.h1Transport().pool
	p.mu.Lock()
	defer p.mu.Unlock()
	hc := p.hosts[base[len("http://"):]]
	return hc != nil && hc.noPipe
}

// TestH1Pipeline: over the connection cap, requests are pipelined on the
// connection in use, up to Pipeline at once, and each gets its own reply.
func TestH1Pipeline(t *testing.T) {
	tests := []struct {
		name        string
		pipeline    int
		wantPeakMin int
		wantPeakMax int
	}{
		{"none", 0, 1, 1},
		{"one", 1, 1, 1},
		{"four", 4, 2, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &pipeServer{delay: func(string) time.Duration { return 2 * time.Millisecond }}
			base := s.start(t)
			h := &Handler{Pipeline: tt.pipeline}
			hc := capped(h, 1)
			t.Cleanup(func() { h.Close() })
			if got := h.Pipelining(parse(t, base+"/")); got != max(tt.pipeline, 1) {
				t.Errorf("Pipelining(http) = %d, want %d", got, max(tt.pipeline, 1))
			}
			if got := h.Pipelining(parse(t, "https://example.org/")); got != max(tt.pipeline, 1) {
				t.Errorf("Pipelining(https) = %d, want %d: the h1 client pipelines over TLS too", got, max(tt.pipeline, 1))
			}
			h2 := &Handler{Pipeline: tt.pipeline, HTTP2: true}
			if got := h2.Pipelining(parse(t, "https://example.org/")); got != 1 {
				t.Errorf("HTTP2: Pipelining(https) = %d, want 1: net/http does not pipeline", got)
			}
			// The first exchange proves the connection kept alive; only
			// then does it take pipelined requests.
			fetchMany(t, hc, base, 1)
			fetchMany(t, hc, base, 24)
			if n := s.accepted.Load(); n != 1 {
				t.Errorf("%d connections, want 1", n)
			}
			s.mu.Lock()
			peak := s.peak
			s.mu.Unlock()
			if peak < tt.wantPeakMin || peak > tt.wantPeakMax {
				t.Errorf("at most %d requests outstanding at the server, want %d to %d", peak, tt.wantPeakMin, tt.wantPeakMax)
			}
			if n := idleConns(h); n != 1 {
				t.Errorf("%d idle connections after, want 1", n)
			}
		})
	}
}

// TestH1PipelineClosed: a connection that closes with requests pipelined
// on it makes them again on another. Closed with a word (Connection:
// close) it is an ordinary end; closed without one after requests were
// pipelined, the server is taken not to cope, and pipelined to no more.
func TestH1PipelineClosed(t *testing.T) {
	for _, tt := range []struct {
		name       string
		how        int
		wantNoPipe bool
	}{
		{"announced", 2, false},
		{"silent", 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &pipeServer{
				delay: func(string) time.Duration { return time.Millisecond },
				close: func(n int) int {
					if n == 3 {
						return tt.how
					}
					return 0
				},
			}
			base := s.start(t)
			h := &Handler{Pipeline: 4}
			hc := capped(h, 2)
			t.Cleanup(func() { h.Close() })
			fetchMany(t, hc, base, 2)
			fetchMany(t, hc, base, 24)
			if got := noPipe(h, base); got != tt.wantNoPipe {
				t.Errorf("pipelining stopped: %v, want %v", got, tt.wantNoPipe)
			}
			if s.accepted.Load() < 3 {
				t.Errorf("%d connections: the server's closes were not met", s.accepted.Load())
			}
		})
	}
}

// TestH1PipelineCancel: a pipelined request whose context ends while it
// waits for its turn returns at once, without waiting for the reply
// before its own (which the server holds until it has); the request
// before it is not disturbed, and the one after it is made again on
// another connection.
func TestH1PipelineCancel(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	s := &pipeServer{delay: func(path string) time.Duration {
		if path == "/slow" {
			close(arrived)
			<-release
		}
		return 0
	}}
	base := s.start(t)
	h := &Handler{Pipeline: 4}
	hc := capped(h, 1)
	t.Cleanup(func() { h.Close() })
	fetchMany(t, hc, base, 1)

	slow := make(chan error, 1)
	go func() {
		_, body, err := get(t, hc, &fetch.Request{URL: parse(t, base+"/slow")})
		if err == nil && string(body) != "/slow" {
			err = fmt.Errorf("body %q", body)
		}
		slow <- err
	}()
	<-arrived // /slow has the connection, and its reply is held
	gone := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := hc.Fetch(ctx, &fetch.Request{URL: parse(t, base+"/gone")})
		gone <- err
	}()
	select {
	case err := <-gone:
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, fetch.Timeout) {
			t.Errorf("the cancelled request: %v, want its context's end", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the cancelled request waited for the reply before its own")
	}
	close(release)
	after := make(chan error, 1)
	go func() {
		_, body, err := get(t, hc, &fetch.Request{URL: parse(t, base+"/after")})
		if err == nil && string(body) != "/after" {
			err = fmt.Errorf("body %q", body)
		}
		after <- err
	}()
	if err := <-slow; err != nil {
		t.Errorf("/slow: %v", err)
	}
	if err := <-after; err != nil {
		t.Errorf("/after: %v", err)
	}
}

// TestH1PipelineOrder: replies of different lengths and framings, read in
// turn by requests whose readers take their time, each reach their own
// request.
func TestH1PipelineOrder(t *testing.T) {
	addr := fetchtest.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			r, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			p := r.URL.Path
			if len(p)%2 == 0 {
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(p), p)
			} else {
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(p), p)
			}
		}
	})
	h := &Handler{Pipeline: 8}
	hc := capped(h, 2)
	t.Cleanup(func() { h.Close() })
	base := "http://" + addr
	fetchMany(t, hc, base, 2)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			path := fmt.Sprintf("/%0*d", 1+i%7, i)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := hc.Fetch(ctx, &fetch.Request{URL: parse(t, base+path)})
			if err != nil {
				t.Errorf("%s: %v", path, err)
				return
			}
			defer res.Body.Close()
			var b [1]byte
			n, _ := res.Body.Read(b[:]) // a slow reader: the next waits for it
			time.Sleep(time.Millisecond)
			rest, err := io.ReadAll(res.Body)
			if got := string(b[:n]) + string(rest); err != nil || got != path {
				t.Errorf("%s: got %q, %v", path, got, err)
			}
		})
	}
	wg.Wait()
}

// TestH1PipelineNotBehindBulk: no request is pipelined behind a reply
// whose body is longer than bulkBody: it goes on another connection, and
// completes while that body is still unread.
func TestH1PipelineNotBehindBulk(t *testing.T) {
	big := strings.Repeat("b", bulkBody+1)
	s := &pipeServer{
		delay: func(path string) time.Duration {
			if path == "/big" {
				return 0
			}
			return 50 * time.Millisecond
		},
		body: func(path string) string {
			if path == "/big" {
				return big
			}
			return path
		},
	}
	base := s.start(t)
	h := &Handler{Pipeline: 4}
	hc := capped(h, 2)
	t.Cleanup(func() { h.Close() })
	fetchMany(t, hc, base, 2) // both connections proven

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := hc.Fetch(ctx, &fetch.Request{URL: parse(t, base+"/big")})
	if err != nil {
		t.Fatal(err)
	}
	// The other connection carries these, in turn, while /big waits.
	done := make(chan struct{})
	go func() {
		defer close(done)
		fetchMany(t, hc, base, 3)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Error("requests were held behind the unread long body")
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || len(b) != len(big) {
		t.Errorf("/big: %d bytes, %v", len(b), err)
	}
	<-done
}

// TestH1PipelineOutOfStep: a server whose replies on a pipelined
// connection are out of step with the requests (one too many, or one that
// cannot be the reply to its request) poisons the connection: the
// requests whose replies were not yet delivered are made again on a fresh
// connection, the reply being read when the surplus shows fails (Kind
// Protocol) rather than end as if whole, and pipelining to the host stops.
// (Replies delivered before the surplus showed cannot be taken back: no
// HTTP/1.1 client can match a well-framed reply to its request, which is
// why pipelining is off by default.)
func TestH1PipelineOutOfStep(t *testing.T) {
	ok := func(p string) string {
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(p), p)
	}
	const extra = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nextra"
	tests := []struct {
		name  string
		head  bool
		reply func(paths []string) string // the replies to the pipelined requests, in the order read
		// the server closes the connection after them (and pipelining
		// goes on)
		closes bool
		// what the request read n-th gets: its body, or an error of kind
		want func(n int, path string) (string, fetch.Kind)
	}{
		{
			name:  "one reply too many first",
			reply: func(ps []string) string { return extra + ok(ps[0]) + ok(ps[1]) + ok(ps[2]) },
			want: func(n int, p string) (string, fetch.Kind) {
				if n == 2 {
					return "", fetch.Protocol // the last: the surplus follows it
				}
				return "?", 0 // shifted, and delivered: not knowable then
			},
		},
		{
			name:  "one reply too many last",
			reply: func(ps []string) string { return ok(ps[0]) + ok(ps[1]) + ok(ps[2]) + extra },
			want: func(n int, p string) (string, fetch.Kind) {
				if n == 2 {
					return "", fetch.Protocol
				}
				return p, 0
			},
		},
		{
			name: "one reply too many after HEADs",
			head: true,
			reply: func(ps []string) string {
				return "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n" + "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n" +
					"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n" + extra
			},
			// The last HEAD's reply, not delivered, is asked for again.
			want: func(n int, p string) (string, fetch.Kind) { return "", 0 },
		},
		{
			name: "a 206 to a request for the whole",
			reply: func(ps []string) string {
				return ok(ps[0]) + "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-1/9\r\nContent-Length: 2\r\n\r\nxx" + ok(ps[2])
			},
			// The second and the third are made again.
			want: func(n int, p string) (string, fetch.Kind) { return p, 0 },
		},
		{
			// Not out of step: the server closes after the last reply,
			// which is whole.
			name:   "closed after the last reply",
			reply:  func(ps []string) string { return ok(ps[0]) + ok(ps[1]) + ok(ps[2]) },
			closes: true,
			want:   func(n int, p string) (string, fetch.Kind) { return p, 0 },
		},
		{
			name:  "a 304 to an unconditional request",
			reply: func(ps []string) string { return ok(ps[0]) + ok(ps[1]) + "HTTP/1.1 304 Not Modified\r\n\r\n" },
			want:  func(n int, p string) (string, fetch.Kind) { return p, 0 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var accepted atomic.Int32
			order := make(chan []string, 1)
			addr := fetchtest.Serve(t, func(c net.Conn) {
				first := accepted.Add(1) == 1
				br := bufio.NewReader(c)
				n := 0
				var paths []string
				for {
					r, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					n++
					if !first || n == 1 || len(paths) == 3 {
						p := r.URL.Path
						if r.Method == http.MethodHead {
							fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(p))
						} else {
							io.WriteString(c, ok(p))
						}
						continue
					}
					// The three requests pipelined on the proven
					// connection, answered out of step once all came.
					paths = append(paths, r.URL.Path)
					if len(paths) == 3 {
						order <- paths
						io.WriteString(c, tt.reply(paths))
						if tt.closes {
							return
						}
					}
				}
			})
			base := "http://" + addr
			h := &Handler{Pipeline: 4}
			hc := capped(h, 1)
			t.Cleanup(func() { h.Close() })
			fetchMany(t, hc, base, 1) // proves the connection

			type outcome struct {
				body string
				size int64
				err  error
			}
			var (
				mu  sync.Mutex
				got = map[string]outcome{}
				wg  sync.WaitGroup
			)
			for _, p := range []string{"/a", "/b", "/c"} {
				wg.Go(func() {
					res, body, err := get(t, hc, &fetch.Request{URL: parse(t, base+p), Head: tt.head})
					var size int64
					if res != nil {
						size = res.Size
					}
					mu.Lock()
					got[p] = outcome{string(body), size, err}
					mu.Unlock()
				})
			}
			wg.Wait()
			var paths []string
			select {
			case paths = <-order:
			default:
				t.Fatalf("the three requests were not pipelined on one connection: %v", got)
			}
			for n, p := range paths {
				body, kind := tt.want(n, p)
				o := got[p]
				switch {
				case kind != 0:
					if !errors.Is(o.err, kind) {
						t.Errorf("%s (%d-th in line): %q, %v (kind %v); want kind %v", p, n+1, o.body, o.err, fetch.KindOf(o.err), kind)
					}
				case o.err != nil:
					t.Errorf("%s (%d-th in line): %v", p, n+1, o.err)
				case tt.head && o.size != int64(len(p)) && n == 2:
					t.Errorf("%s (HEAD, %d-th in line): size %d, want %d from a reply of its own", p, n+1, o.size, len(p))
				case body != "?" && o.body != body:
					t.Errorf("%s (%d-th in line): %q, want %q", p, n+1, o.body, body)
				}
			}
			if noPipe(h, base) == tt.closes {
				t.Errorf("pipelining to the host stopped: %v, want %v", noPipe(h, base), !tt.closes)
			}
			fetchMany(t, hc, base, 4)
		})
	}
}
