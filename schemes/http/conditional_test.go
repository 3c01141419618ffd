package http

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// TestConditional checks Request.Header and Request.IfModifiedSince: the
// fields are sent, and a 304 is an error of Kind NotModified that moves no
// body.
func TestConditional(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		mod := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
		var sent atomic.Pointer[http.Header]
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			h := r.Header.Clone()
			sent.Store(&h)
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			http.ServeContent(w, r, "x.txt", mod, strings.NewReader("the body"))
		})
		h := tc.handler(t)
		tests := []struct {
			name string
			req  *fetch.Request
			kind fetch.Kind
		}{
			{"unconditional", &fetch.Request{}, 0},
			{"since before", &fetch.Request{IfModifiedSince: mod.Add(-time.Hour)}, 0},
			{"since after", &fetch.Request{IfModifiedSince: mod.Add(time.Hour)}, fetch.NotModified},
			{"since equal", &fetch.Request{IfModifiedSince: mod}, fetch.NotModified},
			{"etag", &fetch.Request{Header: http.Header{"If-None-Match": {`"v1"`}}}, fetch.NotModified},
			{"other etag", &fetch.Request{Header: http.Header{"If-None-Match": {`"v0"`}}}, 0},
		}
		for _, tt := range tests {
			tt.req.URL = parse(t, srv.URL+"/x.txt")
			res, body, err := get(t, h, tt.req)
			if tt.kind != 0 {
				var re *fetch.ReplyError
				if !errors.Is(err, tt.kind) || !errors.As(err, &re) || re.Code != http.StatusNotModified {
					t.Errorf("%s: %v, %v; want kind %v with a 304 ReplyError", tt.name, res, err, tt.kind)
				}
			} else if err != nil || string(body) != "the body" {
				t.Errorf("%s: %q, %v; want the body", tt.name, body, err)
			}
			hd := *sent.Load()
			if tt.req.IfModifiedSince.IsZero() != (hd.Get("If-Modified-Since") == "") {
				t.Errorf("%s: If-Modified-Since %q sent", tt.name, hd.Get("If-Modified-Since"))
			} else if !tt.req.IfModifiedSince.IsZero() && hd.Get("If-Modified-Since") != tt.req.IfModifiedSince.UTC().Format(http.TimeFormat) {
				t.Errorf("%s: If-Modified-Since %q sent", tt.name, hd.Get("If-Modified-Since"))
			}
		}

		// Header fields are sent, and may replace the handler's own.
		req := &fetch.Request{URL: parse(t, srv.URL+"/x.txt"), Header: http.Header{
			"Accept": {"text/plain"}, "Cookie": {"a=1"}, "User-Agent": {"crawler/2"},
		}}
		if _, _, err := get(t, h, req); err != nil {
			t.Fatal(err)
		}
		hd := *sent.Load()
		if hd.Get("Accept") != "text/plain" || hd.Get("Cookie") != "a=1" || hd.Get("User-Agent") != "crawler/2" {
			t.Errorf("server saw %v", hd)
		}
		if lines, err := h.Plan(req); err != nil || !strings.Contains(strings.Join(lines, "\n"), "Cookie: ****") {
			t.Errorf("Plan = %q, %v; want the Cookie line, masked", lines, err)
		}
		// A header that would split the request is refused before sending.
		bad := &fetch.Request{URL: parse(t, srv.URL+"/x.txt"), Header: http.Header{"Accept": {"a\r\nX-Evil: 1"}}}
		if _, _, err := get(t, h, bad); !errors.Is(err, fetch.Refused) {
			t.Errorf("a header value with CR LF: %v, want kind Refused", err)
		}
	})
}

// TestRetryAfter checks that 429 and 503 are Kind Unavailable and carry
// the server's Retry-After, in seconds or as a date.
func TestRetryAfter(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/seconds":
				w.Header().Set("Retry-After", "120")
				w.WriteHeader(http.StatusTooManyRequests)
			case "/date":
				w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
				w.WriteHeader(http.StatusServiceUnavailable)
			case "/none":
				w.WriteHeader(http.StatusServiceUnavailable)
			}
			io.WriteString(w, "later")
		})
		h := tc.handler(t)
		for path, want := range map[string]time.Duration{"/seconds": 120 * time.Second, "/date": time.Hour, "/none": 0} {
			_, _, err := get(t, h, &fetch.Request{URL: parse(t, srv.URL+path)})
			if !errors.Is(err, fetch.Unavailable) {
				t.Errorf("%s: %v, want kind Unavailable", path, err)
				continue
			}
			d, ok := fetch.RetryAfter(err)
			if ok != (want > 0) || d > want || d < want-time.Minute {
				t.Errorf("%s: RetryAfter = %v, %v; want about %v", path, d, ok, want)
			}
		}
		now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		for in, want := range map[string]time.Duration{
			"": 0, "0": 0, "-5": 0, "30": 30 * time.Second, "x": 0, "9999999": 24 * time.Hour,
			"Mon, 01 Jan 2024 00:01:00 GMT": time.Minute, "Sun, 31 Dec 2023 00:00:00 GMT": 0,
		} {
			if got := retryAfter(in, now); got != want {
				t.Errorf("retryAfter(%q) = %v, want %v", in, got, want)
			}
		}
	})
}

// TestCloseAbortsRead checks that Close, called while a Read waits for a
// server that sends nothing more, ends that Read at once. In a synctest
// bubble on pipes, the Read is known to be blocked (synctest.Wait) before
// Close, and "at once" is no time on the bubble's clock.
func TestCloseAbortsRead(t *testing.T) {
	onBoth(t, func(t *testing.T, tc transportCase) {
		synctest.Test(t, func(t *testing.T) {
			base, p := rawMemServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc", true)
			h := tc.handler(t)
			res, err := memClient(p, h).Do(context.Background(), &fetch.Request{URL: parse(t, base+"/"), IdleTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 3)
			if _, err := io.ReadFull(res.Body, buf); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := res.Body.Read(make([]byte, 10)); done <- err }()
			synctest.Wait()
			start := time.Now()
			res.Body.Close()
			select {
			case err := <-done:
				if d := time.Since(start); d != 0 {
					t.Errorf("the blocked Read ended %v after Close, want at once", d)
				}
				if err == nil {
					t.Errorf("Read after Close returned no error")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Close did not abort the blocked Read")
			}
		})
	})
}
