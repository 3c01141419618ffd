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
