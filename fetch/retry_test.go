package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestRetryPolicyWait(t *testing.T) {
	p := RetryPolicy{Attempts: 40}
	get := &Request{}
	for _, tt := range []struct {
		err   error
		retry bool
	}{
		{Errorf(Connect, "refused"), true},
		{Errorf(Timeout, "slow"), true},
		{Errorf(Incomplete, "cut"), true},
		{Reply(Unavailable, 503, "busy"), true},
		{fmt.Errorf("dial: %w", context.DeadlineExceeded), true},
		{Reply(NotFound, 550, "no such file"), false},
		{Errorf(Auth, "530"), false},
		{Errorf(Refused, "port"), false},
		{Errorf(Connect, "x: %w", context.Canceled), false},
		{errors.New("plain"), false},
		{nil, false},
	} {
		if _, ok := p.Wait(get, 1, tt.err); ok != tt.retry {
			t.Errorf("Wait(%v) retries: %v, want %v", tt.err, ok, tt.retry)
		}
	}
	if _, ok := p.Wait(&Request{Message: bytes.NewReader(nil)}, 1, Errorf(Timeout, "slow")); ok {
		t.Error("a request that sends a message is retried")
	}
	if _, ok := (RetryPolicy{}).Wait(get, 1, Errorf(Timeout, "slow")); ok {
		t.Error("the zero RetryPolicy retries")
	}
	if _, ok := (RetryPolicy{Attempts: 2}).Wait(get, 3, Errorf(Timeout, "slow")); ok {
		t.Error("a third retry of two")
	}
}

// The waits grow from Backoff, with jitter of at most half, and stop at
// MaxBackoff: never negative, however many attempts (the shift used to
// overflow from the 34th).
func TestRetryPolicyBackoff(t *testing.T) {
	p := RetryPolicy{Attempts: 1000}
	err := Errorf(Timeout, "slow")
	for attempt := 1; attempt <= 1000; attempt++ {
		d, ok := p.Wait(nil, attempt, err)
		full := min(time.Second<<min(attempt-1, 10), 30*time.Second)
		if !ok || d < full/2 || d > full {
			t.Fatalf("attempt %d: wait %v, %v; want between %v and %v", attempt, d, ok, full/2, full)
		}
	}
	q := RetryPolicy{Attempts: 5, Backoff: 100 * time.Millisecond, MaxBackoff: 250 * time.Millisecond}
	if d, _ := q.Wait(nil, 5, err); d > 250*time.Millisecond || d < 125*time.Millisecond {
		t.Errorf("capped wait = %v", d)
	}
}

func TestRetryPolicyRetryAfter(t *testing.T) {
	p := RetryPolicy{Attempts: 3}
	busy := &Error{Kind: Unavailable, Err: &ReplyError{Code: 429, Text: "slow down", RetryAfter: 12 * time.Second}}
	if d, ok := p.Wait(nil, 1, busy); !ok || d != 12*time.Second {
		t.Errorf("Wait with Retry-After 12s = %v, %v", d, ok)
	}
	busy.Err.(*ReplyError).RetryAfter = time.Hour
	if _, ok := p.Wait(nil, 1, busy); ok {
		t.Error("a server asking for an hour is retried within the 30s cap")
	}
}

// The knobs of curl's --retry: a reply marked transient (HTTP 500, 502),
// AllErrors, a constant Delay, and MaxTime from the first attempt.
func TestRetryPolicyCurl(t *testing.T) {
	p := RetryPolicy{Attempts: 3}
	five := &Error{Kind: Other, Err: &ReplyError{Code: 500, Text: "oops", Transient: true}}
	if _, ok := p.Wait(nil, 1, five); !ok {
		t.Error("a transient reply is not retried")
	}
	notFound := Reply(NotFound, 404, "gone")
	if _, ok := p.Wait(nil, 1, notFound); ok {
		t.Error("404 is retried without AllErrors")
	}
	all := RetryPolicy{Attempts: 3, AllErrors: true}
	for _, tt := range []struct {
		err   error
		retry bool
	}{
		{notFound, true},
		{Errorf(Auth, "530"), true},
		{errors.New("plain"), true},
		{Errorf(Refused, "port"), false},
		{Errorf(Usage, "bad"), false},
		{Errorf(Malformed, "bad"), false},
		{Errorf(Unsupported, "no"), false},
		{Errorf(Connect, "x: %w", context.Canceled), false},
	} {
		if _, ok := all.Wait(nil, 1, tt.err); ok != tt.retry {
			t.Errorf("AllErrors: Wait(%v) retries %v, want %v", tt.err, ok, tt.retry)
		}
	}
	if _, ok := all.Wait(&Request{Message: bytes.NewReader(nil)}, 1, notFound); ok {
		t.Error("AllErrors resends a message")
	}
	fixed := RetryPolicy{Attempts: 5, Delay: 3 * time.Second}
	busy := &Error{Kind: Unavailable, Err: &ReplyError{Code: 429, RetryAfter: 12 * time.Second}}
	for attempt := 1; attempt <= 5; attempt++ {
		if d, ok := fixed.Wait(nil, attempt, busy); !ok || d != 3*time.Second {
			t.Errorf("Delay: attempt %d waits %v, %v; want 3s", attempt, d, ok)
		}
	}
	capped := RetryPolicy{Attempts: 5, Delay: 3 * time.Second, MaxTime: 10 * time.Second}
	if _, ok := capped.WaitAfter(nil, 1, busy, 6*time.Second); !ok {
		t.Error("MaxTime: a retry within the time is not made")
	}
	if _, ok := capped.WaitAfter(nil, 2, busy, 8*time.Second); ok {
		t.Error("MaxTime: a retry past the time is made")
	}
}
