package http

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// exchangeServer serves raw HTTP/1.1: for each request read on a
// connection it writes reply(request); after it, the connection is closed
// when closeAfter says so (without telling the client), and kept for the
// next request otherwise. It returns the base URL and the count of
// connections accepted.
func exchangeServer(t *testing.T, reply func(r *http.Request) string, closeAfter func(r *http.Request) bool) (string, *atomic.Int32) {
	t.Helper()
	var accepted atomic.Int32
	addr := fetchtest.Serve(t, exchange(&accepted, reply, closeAfter))
	return "http://" + addr, &accepted
}

// exchangeMemServer is exchangeServer on a network of pipes, for a test
// in a synctest bubble: fetch its URLs with memClient(p, h).
func exchangeMemServer(t *testing.T, reply func(r *http.Request) string, closeAfter func(r *http.Request) bool) (string, *atomic.Int32, *fetchtest.Pipes) {
	t.Helper()
	var accepted atomic.Int32
	base, p := memServe(t, exchange(&accepted, reply, closeAfter))
	return base, &accepted, p
}

// exchange is exchangeServer's answer to a connection.
func exchange(accepted *atomic.Int32, reply func(r *http.Request) string, closeAfter func(r *http.Request) bool) func(net.Conn) {
	return func(c net.Conn) {
		accepted.Add(1)
		br := bufio.NewReader(c)
		for {
			r, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			if _, err := io.WriteString(c, reply(r)); err != nil {
				return
			}
			if closeAfter != nil && closeAfter(r) {
				return
			}
		}
	}
}

// idleConns returns the idle connections h keeps for plain HTTP.
func idleConns(h *Handler) int {
	h.mu.Lock()
	t := h.plain
	h.mu.Unlock()
	if t == nil {
		return 0
	}
	t.pool.mu.Lock()
	defer t.pool.mu.Unlock()
	n := 0
	for _, hc := range t.pool.hosts {
		n += len(hc.idle)
	}
	return n
}

func always(*http.Request) bool { return true }

// TestConnections makes five requests in a row on one Handler and
// counts the connections the server accepted: one when the replies let
// the connection be reused, five when they do not.
func TestConnections(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		const ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
		tests := []struct {
			name       string
			reply      string
			closeAfter func(*http.Request) bool
			req        fetch.Request
			body       string
			size       int64
			kind       fetch.Kind // of the error, from Fetch or Read
			conns      int32
			idle       int // connections kept at the end
		}{
			{name: "keep-alive", reply: ok, body: "ok", size: 2, conns: 1, idle: 1},
			{name: "chunked", reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n3\r\n!!!\r\n0\r\n\r\n", body: "ok!!!", size: -1, conns: 1, idle: 1},
			{name: "chunked with a trailer", reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-Sum: 1\r\n\r\n", body: "ok", size: -1, conns: 1, idle: 1},
			{name: "Connection: close", reply: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", closeAfter: always, body: "ok", size: 2, conns: 5},
			{name: "HTTP/1.0", reply: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", closeAfter: always, body: "ok", size: 2, conns: 5},
			{name: "HTTP/1.0 keep-alive", reply: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", body: "ok", size: 2, conns: 1, idle: 1},
			{name: "until close", reply: "HTTP/1.1 200 OK\r\n\r\nall of it", closeAfter: always, body: "all of it", size: -1, conns: 5},
			{name: "HEAD with Content-Length", reply: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", req: fetch.Request{Head: true}, size: 1000, conns: 1, idle: 1},
			{name: "204", reply: "HTTP/1.1 204 No Content\r\n\r\n", size: 0, conns: 1, idle: 1},
			{name: "304", reply: "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n", req: fetch.Request{IfModifiedSince: time.Unix(1e9, 0)}, kind: fetch.NotModified, conns: 1, idle: 1},
			{name: "1xx first", reply: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n" + ok, body: "ok", size: 2, conns: 1, idle: 1},
			{name: "404 with a body", reply: "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found", kind: fetch.NotFound, conns: 1, idle: 1},
			{name: "redirect", reply: "HTTP/1.1 302 Found\r\nLocation: /x\r\nContent-Length: 5\r\n\r\nthere", body: "there", size: 5, conns: 1, idle: 1}, // reported, not followed
			{name: "more than Content-Length", reply: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok and more", body: "ok", size: 2, conns: 5},
			// The server stops short and half-closes; a connection pooled
			// after it would be retried, so the pool itself is checked too.
			{name: "cut short", reply: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok", closeAfter: always, kind: fetch.Incomplete, conns: 5},
			{name: "chunked cut short", reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n", closeAfter: always, kind: fetch.Incomplete, conns: 5},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				base, accepted := exchangeServer(t, func(*http.Request) string { return tt.reply }, tt.closeAfter)
				h := tc.handler(t)
				for i := range 5 {
					req := tt.req
					req.URL = parse(t, base+"/f")
					res, body, err := get(t, h, &req)
					if tt.kind != 0 {
						if !errors.Is(err, tt.kind) {
							t.Fatalf("request %d: %q, %v (kind %v); want kind %v", i, body, err, fetch.KindOf(err), tt.kind)
						}
						continue
					}
					if err != nil {
						t.Fatalf("request %d: %v", i, err)
					}
					if string(body) != tt.body || res.Size != tt.size {
						t.Fatalf("request %d: %q (size %d); want %q (size %d)", i, body, res.Size, tt.body, tt.size)
					}
				}
				if n := accepted.Load(); n != tt.conns {
					t.Errorf("%d connections for 5 requests, want %d", n, tt.conns)
				}
				if n := idleConns(h); !tc.netHTTP && n != tt.idle {
					t.Errorf("%d idle connections kept, want %d", n, tt.idle)
				}
			})
		}
	})
}

// TestStaleConnection: a server that closes a connection once it has
// idled (nginx after keepalive_timeout) makes the next request on it
// fail before any reply; that request is made again on a new connection.
func TestStaleConnection(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		for _, reset := range []bool{false, true} {
			name := "closed"
			if reset {
				name = "reset"
			}
			t.Run(name, func(t *testing.T) {
				var accepted atomic.Int32
				served := make(chan bool, 10)
				addr := fetchtest.Serve(t, func(c net.Conn) {
					accepted.Add(1)
					r, err := http.ReadRequest(bufio.NewReader(c))
					if err != nil {
						return
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"+r.URL.Path[1:])
					if reset {
						c.(*net.TCPConn).SetLinger(0)
					}
					c.Close()
					served <- true
				})
				h := tc.handler(t)
				for _, p := range []string{"a1", "b2", "c3"} {
					_, body, err := get(t, h, &fetch.Request{URL: parse(t, "http://"+addr+"/"+p)})
					if err != nil || string(body) != p {
						t.Fatalf("GET /%s: %q, %v", p, body, err)
					}
					<-served
					time.Sleep(10 * time.Millisecond) // the FIN or RST reaches the client
				}
				if n := accepted.Load(); n != 3 {
					t.Errorf("%d connections accepted, want 3", n)
				}
			})
		}
	})
}

// TestHeaderBound: a reply's header longer than MaxHeaderBytes is an
// error of Kind Protocol; one within it is read.
func TestHeaderBound(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		tests := []struct {
			name  string
			field int // bytes of one header field's value
			kind  fetch.Kind
		}{
			{"within", 1000, 0},
			{"over", 5000, fetch.Protocol},
			{"over in a 1xx", -5000, fetch.Protocol},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				reply := "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", max(tt.field, -tt.field)) + "\r\nContent-Length: 2\r\n\r\nok"
				if tt.field < 0 {
					reply = "HTTP/1.1 103 Early Hints\r\nLink: " + strings.Repeat("a", 3000) + "\r\n\r\nHTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("b", 3000) + "\r\nContent-Length: 2\r\n\r\nok"
				}
				base, _ := exchangeServer(t, func(*http.Request) string { return reply }, nil)
				h := tc.handler(t)
				h.MaxHeaderBytes = 4096
				_, body, err := get(t, h, &fetch.Request{URL: parse(t, base+"/")})
				if tt.kind == 0 {
					if err != nil || string(body) != "ok" {
						t.Fatalf("got %q, %v; want ok", body, err)
					}
					return
				}
				if !errors.Is(err, tt.kind) {
					t.Fatalf("got %q, %v (kind %v); want kind %v", body, err, fetch.KindOf(err), tt.kind)
				}
			})
		}
	})
}

// TestConnsFollowClientPerHost: the Client's PerHost is the one cap on
// connections, whenever it was set: the handler, registered before it was,
// learns it from each request. Two Clients with PerHost 3 sharing the
// handler, or one whose handler pipelines (6 transfers at once), still
// never have more than 3 connections open to the host.
func TestConnsFollowClientPerHost(t *testing.T) {
	for _, tt := range []struct {
		name     string
		clients  int
		pipeline int
	}{
		{"two clients", 2, 0},
		{"pipelined", 1, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			onBoth(t, func(t *testing.T, tc transportCase) {
				var (
					mu         sync.Mutex
					open, peak int
					seen       = map[string]bool{}
				)
				srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					time.Sleep(5 * time.Millisecond)
					io.WriteString(w, "ok")
				}))
				srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
					mu.Lock()
					defer mu.Unlock()
					switch s {
					case http.StateNew:
						open++
						peak = max(peak, open)
						seen[c.RemoteAddr().String()] = true
					case http.StateClosed, http.StateHijacked:
						open--
					}
				}
				srv.Start()
				t.Cleanup(srv.Close)
				h := tc.set(t, &Handler{Pipeline: tt.pipeline})
				var clients []*fetch.Client
				for range tt.clients {
					c := &fetch.Client{}
					c.Register("http", h)
					clients = append(clients, c)
				}
				for _, c := range clients {
					c.PerHost = 3 // after the handler was registered
				}
				var wg sync.WaitGroup
				for i := range 48 {
					wg.Go(func() {
						c := clients[i%len(clients)]
						ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
						defer cancel()
						res, err := c.Fetch(ctx, srv.URL+"/")
						if err != nil {
							t.Error(err)
							return
						}
						defer res.Body.Close()
						if body, err := io.ReadAll(res.Body); err != nil || string(body) != "ok" {
							t.Errorf("got %q, %v", body, err)
						}
					})
				}
				wg.Wait()
				mu.Lock()
				defer mu.Unlock()
				if peak > 3 || len(seen) > 3 {
					t.Errorf("%d connections open at once, %d in all; want at most 3", peak, len(seen))
				}
				if n := idleConns(h); !tc.netHTTP && n != len(seen) {
					t.Errorf("%d idle connections kept, want %d", n, len(seen))
				}
			})
		})
	}
}

// TestWaitForSlot: a fetch waiting for a connection slot gives up when
// its context ends, and the slot goes on to the next. Two Clients with
// PerHost 1 share the handler: the second's request has a transfer slot
// of its own Client, and waits for the handler's one connection.
func TestWaitForSlot(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		release, holding := make(chan struct{}), make(chan struct{})
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hold" {
				close(holding)
				<-release
			}
			io.WriteString(w, "ok")
		})
		h := tc.set(t, &Handler{})
		first, second := capped(h, 1), capped(h, 1)
		held := make(chan error, 1)
		go func() {
			_, _, err := get(t, first, &fetch.Request{URL: parse(t, srv.URL+"/hold")})
			held <- err
		}()
		<-holding // the first fetch has the one slot
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		res, err := second.Fetch(ctx, &fetch.Request{URL: parse(t, srv.URL+"/")})
		cancel()
		if err == nil {
			res.Body.Close()
		}
		if !errors.Is(err, fetch.Timeout) {
			t.Errorf("fetch over the cap: %v (kind %v), want Timeout", err, fetch.KindOf(err))
		}
		close(release)
		if err := <-held; err != nil {
			t.Fatal(err)
		}
		if _, body, err := get(t, second, &fetch.Request{URL: parse(t, srv.URL+"/")}); err != nil || string(body) != "ok" {
			t.Fatalf("after: %q, %v", body, err)
		}
	})
}

// TestCancelStalledBody cancels the context of a fetch whose body
// stalls: the Read blocked on it returns at once, with an error, and the
// connection is not kept. In a synctest bubble on pipes, the Read is
// known to be blocked (synctest.Wait) before the cancel, and "at once" is
// no time on the bubble's clock.
func TestCancelStalledBody(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		synctest.Test(t, func(t *testing.T) {
			base, p := rawMemServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc", true)
			h := tc.handler(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res, err := memClient(p, h).Do(ctx, &fetch.Request{URL: parse(t, base+"/"), IdleTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			buf := make([]byte, 3)
			if _, err := io.ReadFull(res.Body, buf); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := res.Body.Read(make([]byte, 10)); done <- err }()
			synctest.Wait()
			start := time.Now()
			cancel()
			select {
			case err := <-done:
				if d := time.Since(start); d != 0 {
					t.Errorf("the blocked Read ended %v after the cancel, want at once", d)
				}
				if !errors.Is(err, fetch.Canceled) {
					t.Errorf("Read: %v (kind %v), want kind Canceled", err, fetch.KindOf(err))
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the cancel did not end the blocked Read")
			}
			if n := idleConns(h); !tc.netHTTP && n != 0 {
				t.Errorf("%d idle connections kept, want 0", n)
			}
		})
	})
}

// TestH1Transport: plain HTTP going direct is served by the Handler's own
// connections, which the trace shows reused; through a proxy it is not.
func TestH1Transport(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	h := newHandler(t)
	var tr strings.Builder
	for range 2 {
		if _, body, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+"/"), Trace: fetch.NewTrace(&tr)}); err != nil || string(body) != "ok" {
			t.Fatalf("got %q, %v", body, err)
		}
	}
	addr := strings.TrimPrefix(srv.URL, "http://")
	want := "* connecting to " + addr + "\n* connected to " + addr + "\n> GET / HTTP/1.1\n> Host: " + addr + "\n> User-Agent: " + DefaultUserAgent + "\n> Accept-Encoding: " + acceptEncoding + "\n"
	if s := tr.String(); !strings.HasPrefix(s, want) || strings.Count(s, "* reusing the connection to "+addr+"\n> GET / HTTP/1.1\n") != 1 {
		t.Errorf("trace:\n%s\nwant it to start with\n%s\nand show the connection reused once", s, want)
	}
	if n := idleConns(h); n != 1 || len(h.transports) != 0 {
		t.Errorf("%d idle connections of its own and %d net/http transports, want 1 and 0", n, len(h.transports))
	}
	h.Close()
	if n := idleConns(h); n != 0 {
		t.Errorf("after Close, %d idle connections kept, want 0", n)
	}

	hp := &Handler{Proxy: fixedProxy(srv.URL)}
	t.Cleanup(func() { hp.Close() })
	if _, body, err := get(t, hp, &fetch.Request{URL: parse(t, "http://example.invalid/")}); err != nil || string(body) != "ok" {
		t.Fatalf("through a proxy: %q, %v", body, err)
	}
	if n := idleConns(hp); n != 0 || len(hp.transports) != 1 {
		t.Errorf("through a proxy: %d idle connections of its own and %d net/http transports, want 0 and 1", n, len(hp.transports))
	}
}

// TestWaits stalls the server at each wait of a request, on each transport:
// each ends after the idle timeout with an error of Kind Timeout naming
// the wait; and a cancel of the context ends each at once, as Canceled.
func TestWaits(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		const idle = 300 * time.Millisecond
		tests := []struct {
			name, reply string
			what        string // the wait named in the error
			inBody      bool   // the wait is a Read of the body
		}{
			{name: "no reply", reply: "", what: "awaiting the reply"},
			{name: "head cut", reply: "HTTP/1.1 200 OK\r\nContent-Le", what: "reading the reply headers"},
			{name: "1xx then nothing", reply: "HTTP/1.1 100 Continue\r\n\r\n", what: "reading the reply headers"},
			{name: "body stalls", reply: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc", what: "reading the body", inBody: true},
			{name: "chunked body stalls", reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n", what: "reading the body", inBody: true},
			{name: "body to the end stalls", reply: "HTTP/1.1 200 OK\r\n\r\nabc", what: "reading the body", inBody: true},
			{name: "gzip body stalls", reply: "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 100\r\n\r\n\x1f\x8b", what: "reading the body", inBody: true},
		}
		for _, tt := range tests {
			// On pipes in a bubble the waits run on the bubble's clock:
			// the timeout comes exactly when due, and takes no time.
			t.Run(tt.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					base, l := rawMemServer(t, tt.reply, true)
					h := tc.handler(t)
					c := memClient(l, h)
					// The idle timeout.
					start := time.Now()
					res, err := c.Do(context.Background(), &fetch.Request{URL: parse(t, base+"/"), IdleTimeout: idle})
					if tt.inBody {
						if err != nil {
							t.Fatal(err)
						}
						_, err = io.ReadAll(res.Body)
						res.Body.Close()
					}
					want := tt.what + ": nothing for " + idle.String()
					if !errors.Is(err, fetch.Timeout) || !strings.Contains(fmt.Sprint(err), want) {
						t.Errorf("after the idle timeout: %v (kind %v), want kind Timeout, %q", err, fetch.KindOf(err), want)
					}
					if d := time.Since(start); d != idle {
						t.Errorf("the timeout came after %v, want the idle timeout %v", d, idle)
					}

					// A cancel.
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					time.AfterFunc(100*time.Millisecond, cancel)
					start = time.Now()
					res, err = c.Do(ctx, &fetch.Request{URL: parse(t, base+"/"), IdleTimeout: time.Minute})
					if tt.inBody {
						if err != nil {
							t.Fatal(err)
						}
						_, err = io.ReadAll(res.Body)
						res.Body.Close()
					}
					if !errors.Is(err, fetch.Canceled) {
						t.Errorf("after a cancel: %v (kind %v), want kind Canceled", err, fetch.KindOf(err))
					}
					if d := time.Since(start); d != 100*time.Millisecond {
						t.Errorf("the cancel ended the wait after %v, want at once (100ms)", d)
					}
					if n := idleConns(h); !tc.netHTTP && n != 0 {
						t.Errorf("%d idle connections kept, want 0", n)
					}
				})
			})
		}
	})
}

// TestH1ContextTie makes requests on one connection under one context,
// cancels it while the connection idles, and goes on under another: the
// connection serves them all, and the first context's cancel does not
// reach the requests of the second. In a synctest bubble on pipes, the
// tie's func is known to have run after the cancel (synctest.Wait).
func TestH1ContextTie(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base, accepted, p := exchangeMemServer(t, func(*http.Request) string {
			return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
		}, nil)
		h := newHandler(t)
		c := memClient(p, h)
		fetchOK := func(ctx context.Context, i int) {
			t.Helper()
			res, err := c.Do(ctx, &fetch.Request{URL: parse(t, base+"/"), IdleTimeout: 5 * time.Second})
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			if string(b) != "ok" || err != nil {
				t.Fatalf("request %d: %q, %v", i, b, err)
			}
		}
		ctx1, cancel1 := context.WithCancel(context.Background())
		for i := range 3 {
			fetchOK(ctx1, i)
		}
		cancel1()
		synctest.Wait() // the tie's func has run
		if _, err := c.Do(ctx1, &fetch.Request{URL: parse(t, base+"/")}); !errors.Is(err, fetch.Canceled) {
			t.Errorf("under the cancelled context: %v, want kind Canceled", err)
		}
		ctx2, cancel2 := context.WithCancel(context.Background())
		defer cancel2()
		for i := 3; i < 6; i++ {
			fetchOK(ctx2, i)
		}
		fetchOK(context.Background(), 6)
		if n := accepted.Load(); n != 2 {
			// The request under the cancelled context closed the first.
			t.Errorf("%d connections, want 2", n)
		}
	})
}

// TestH1IdleExpiry checks that a pooled connection is closed once it has
// idled the pool's idle time, and not before: not while it is taken and
// put back often, nor idleTime after its first put when it was in use
// meanwhile.
func TestH1IdleExpiry(t *testing.T) {
	// In a bubble the sleeps and the pool's timer run on its clock: the
	// test takes no time, and the expiry comes exactly when it is due.
	synctest.Test(t, func(t *testing.T) {
		const idle = 300 * time.Millisecond
		p := &h1Pool{idleTime: idle}
		ctx := context.Background()
		c1, c2 := net.Pipe()
		defer c2.Close()
		closed := make(chan time.Time, 1)
		go func() {
			io.Copy(io.Discard, c2)
			closed <- time.Now()
		}()
		if pc, _, err := p.get(ctx, "k", 1, false, nil); pc != nil || err != nil {
			t.Fatalf("get of an empty pool = %v, %v", pc, err)
		}
		pc := p.newConn("k", c1)
		take := func(what string) {
			t.Helper()
			got, reused, err := p.get(ctx, "k", 1, false, nil)
			if got != pc || !reused || err != nil {
				t.Fatalf("%s: get = %p, %v, %v; want the idle connection %p", what, got, reused, err, pc)
			}
		}
		pc.release(true)
		// Taken and put back often, for longer than the idle time.
		for range 10 {
			time.Sleep(idle / 10)
			take("reused often")
			pc.release(true)
		}
		// In use while the first timer would have fired, then put back.
		take("before a long use")
		time.Sleep(idle * 3 / 2)
		pc.release(true)
		time.Sleep(idle / 10)
		take("after a long use")
		pc.release(true)
		last := time.Now()
		select {
		case at := <-closed:
			if d := at.Sub(last); d != idle {
				t.Errorf("closed %v after it was put back, want the idle time %v", d, idle)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the idle connection was not closed")
		}
		if got, reused, _ := p.get(ctx, "k", 1, false, nil); got != nil || reused {
			t.Errorf("get after the expiry = %p, %v; want a slot to dial in", got, reused)
		}
	})
}
