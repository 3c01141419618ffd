// Package fetchtest is the conformance kit every fetch.Handler's tests run,
// in the manner of testing/fstest: it checks the contract documented on
// fetch.Handler against a live handler and the server behind it.
package fetchtest

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Cases names the URLs the kit fetches.
type Cases struct {
	// Existing names a resource that exists, with a body long enough that
	// one Read does not return it all (64 KiB or more is plenty); its
	// bytes must equal Want when Want is non-nil.
	Existing string
	Want     []byte
	// Missing names a resource that does not exist.
	Missing string
	// Secret, when non-empty, names a URL carrying the password Password
	// whose fetch fails (a wrong password, or a missing resource); the kit
	// checks that no error string shows the password.
	Secret   string
	Password string
	// Parser parses the URLs above; the zero Parser is strict.
	Parser url.Parser
	// SkipCancel, when set, makes the kit skip the mid-body cancel check
	// (for handlers whose body arrives in one read).
	SkipCancel bool
	// Stalled, when non-empty, names a resource whose server sends the
	// start of the body (at least one byte) and then neither sends more
	// nor closes the connection. The kit checks the Handler contract's
	// Close rules on it: Close returns promptly although the body never
	// ends (it drains a small bound, then drops the connection), and a
	// Close called while a Read is blocked aborts that Read with an error.
	Stalled string
}

// stallBound is how long Close of a stalled body may take. The kit's
// requests have an idle timeout far longer, so a Close that waits for the
// server (rather than dropping the connection) fails the check.
const (
	stallBound = 15 * time.Second
	stallIdle  = 5 * time.Minute
)

// Run checks h against the cases: Body never nil and the bytes right, Close
// twice is safe, a cancel in the middle of a body ends reads promptly with a
// Timeout or Canceled error, a missing resource is fetch.NotFound with a nil
// Resource, no error shows a password, and (with Cases.Stalled) Close of a
// body that never ends returns promptly and aborts a blocked Read.
func Run(t *testing.T, h fetch.Handler, cs Cases) {
	t.Helper()
	parse := func(t *testing.T, s string) *url.URL {
		t.Helper()
		u, err := cs.Parser.Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		return u
	}
	client := new(fetch.Client)
	u := parse(t, cs.Existing)
	client.Register(u.Scheme, h)
	if cs.Missing != "" {
		if s := parse(t, cs.Missing).Scheme; s != u.Scheme {
			t.Fatalf("Missing has scheme %q, Existing %q", s, u.Scheme)
		}
	}
	client.Policy.AllowPortOverride = true

	t.Run("Existing", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := h.Fetch(ctx, &fetch.Request{URL: parse(t, cs.Existing)})
		if err != nil {
			t.Fatalf("Fetch(%s): %v", cs.Existing, err)
		}
		if res == nil || res.Body == nil {
			t.Fatalf("Fetch(%s): nil resource or body with nil error", cs.Existing)
		}
		got, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatalf("reading %s: %v", cs.Existing, err)
		}
		if cs.Want != nil && string(got) != string(cs.Want) {
			t.Errorf("body of %s: got %d bytes, want %d (first difference at %d)", cs.Existing, len(got), len(cs.Want), firstDiff(got, cs.Want))
		}
		if res.Size >= 0 && res.Offset == 0 && res.Size != int64(len(got)) {
			t.Errorf("Size = %d, read %d bytes", res.Size, len(got))
		}
		if err := res.Body.Close(); err != nil {
			t.Errorf("first Close: %v", err)
		}
		closeAgain(t, res.Body)
	})

	t.Run("CloseEarly", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := h.Fetch(ctx, &fetch.Request{URL: parse(t, cs.Existing)})
		if err != nil {
			t.Fatalf("Fetch(%s): %v", cs.Existing, err)
		}
		done := make(chan struct{})
		go func() { res.Body.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("Close before reading the body did not return")
		}
		closeAgain(t, res.Body)
	})

	if !cs.SkipCancel {
		t.Run("CancelMidBody", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res, err := h.Fetch(ctx, &fetch.Request{URL: parse(t, cs.Existing)})
			if err != nil {
				t.Fatalf("Fetch(%s): %v", cs.Existing, err)
			}
			defer res.Body.Close()
			buf := make([]byte, 512)
			if _, err := res.Body.Read(buf); err != nil {
				t.Fatalf("first Read: %v", err)
			}
			cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := io.Copy(io.Discard, res.Body)
				errc <- err
			}()
			select {
			case err := <-errc:
				// Bytes already buffered may still arrive, and a body that
				// was wholly buffered may end cleanly; but a failure must be
				// of the right class.
				if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, fetch.Timeout) {
					t.Errorf("read after cancel: %v (kind %v), want context.Canceled or fetch.Timeout", err, fetch.KindOf(err))
				}
			case <-time.After(20 * time.Second):
				t.Fatal("reads did not stop after the context was canceled")
			}
		})
	}

	if cs.Stalled != "" {
		t.Run("CloseStalled", func(t *testing.T) { closeStalled(t, h, parse(t, cs.Stalled), false) })
		t.Run("CloseDuringRead", func(t *testing.T) { closeStalled(t, h, parse(t, cs.Stalled), true) })
	}

	if cs.Missing != "" {
		t.Run("Missing", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := h.Fetch(ctx, &fetch.Request{URL: parse(t, cs.Missing)})
			if err == nil {
				if res != nil && res.Body != nil {
					res.Body.Close()
				}
				t.Fatalf("Fetch(%s): no error, want fetch.NotFound", cs.Missing)
			}
			if res != nil {
				t.Errorf("Fetch(%s) returned a Resource with an error", cs.Missing)
			}
			if !errors.Is(err, fetch.NotFound) {
				t.Errorf("Fetch(%s): %v (kind %v), want fetch.NotFound", cs.Missing, err, fetch.KindOf(err))
			}
		})
	}

	if cs.Secret != "" {
		t.Run("NoPasswordInErrors", func(t *testing.T) {
			if cs.Password == "" {
				t.Fatal("Cases.Secret needs Cases.Password")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var trace strings.Builder
			req := &fetch.Request{URL: parse(t, cs.Secret), Trace: fetch.NewTrace(&trace)}
			res, err := h.Fetch(ctx, req)
			if err == nil {
				res.Body.Close()
				t.Fatalf("Fetch(%s): no error, want a failure", redact(cs.Secret, cs.Password))
			}
			if strings.Contains(err.Error(), cs.Password) {
				t.Errorf("handler error shows the password: %v", err)
			}
			if strings.Contains(trace.String(), cs.Password) {
				t.Errorf("trace shows the password:\n%s", trace.String())
			}
			_, err = client.Fetch(ctx, cs.Secret)
			if err == nil || strings.Contains(err.Error(), cs.Password) {
				t.Errorf("client error %v: want a failure without the password", err)
			}
		})
	}
}

// closeStalled fetches a body that stalls after its first bytes, reads
// them, and closes the body: from the test's goroutine, or, when duringRead,
// while another goroutine's Read is blocked (see CloseAbortsRead). Close
// must return within stallBound.
func closeStalled(t *testing.T, h fetch.Handler, u *url.URL, duringRead bool) {
	ctx, cancel := context.WithTimeout(context.Background(), stallIdle)
	defer cancel()
	res, err := h.Fetch(ctx, &fetch.Request{URL: u, IdleTimeout: stallIdle})
	if err != nil {
		t.Fatalf("Fetch(%s): %v", u.Redacted(), err)
	}
	if _, err := res.Body.Read(make([]byte, 1)); err != nil {
		res.Body.Close()
		t.Fatalf("first Read of the stalled body: %v", err)
	}
	if duringRead {
		CloseAbortsRead(t, res.Body)
		return
	}
	closeWithin(t, res.Body)
}

// CloseAbortsRead reads body in another goroutine until the Read blocks on
// a server that sends no more, then closes body from the test's goroutine.
// It fails the test unless Close returns promptly and the blocked Read then
// ends with an error other than io.EOF (a body cut by Close must not look
// complete), as the fetch.Handler contract asks. It returns Close's error.
func CloseAbortsRead(t testing.TB, body io.ReadCloser) error {
	t.Helper()
	readErr := make(chan error, 1)
	go func() {
		buf := make([]byte, 32<<10)
		for {
			if _, err := body.Read(buf); err != nil {
				readErr <- err
				return
			}
		}
	}()
	// The Read is blocked once the bytes the server sent are consumed;
	// give it a moment to get there. Close must work whether or not it has.
	time.Sleep(200 * time.Millisecond)
	err := closeWithin(t, body)
	select {
	case rerr := <-readErr:
		if rerr == io.EOF {
			t.Errorf("the Read blocked during Close returned io.EOF: a cut body must not look complete")
		}
	case <-time.After(stallBound):
		t.Fatal("Close did not abort the blocked Read")
	}
	return err
}

// closeWithin closes body and fails the test unless Close returns within
// stallBound. It returns Close's error.
func closeWithin(t testing.TB, body io.Closer) error {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- body.Close() }()
	select {
	case err := <-closed:
		return err
	case <-time.After(stallBound):
		t.Fatalf("Close of a stalled body took more than %v: it waits for the server instead of dropping the connection", stallBound)
		return nil
	}
}

func closeAgain(t *testing.T, b io.Closer) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("second Close panicked: %v", r)
		}
	}()
	b.Close()
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func redact(s, pw string) string { return strings.ReplaceAll(s, pw, "****") }
