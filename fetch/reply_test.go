package fetch

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestReply(t *testing.T) {
	err := fmt.Errorf("retrieving: %w", Reply(NotFound, 550, "No such file"))
	if !errors.Is(err, NotFound) {
		t.Errorf("Reply(NotFound, ...) is not NotFound: %v", err)
	}
	var re *ReplyError
	if !errors.As(err, &re) || re.Code != 550 || re.Text != "No such file" {
		t.Fatalf("errors.As(*ReplyError) = %+v", re)
	}
	if got, want := err.Error(), "retrieving: not found: 550 No such file"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := Reply(Protocol, 0, "oops\x1b[2J").Error(); got != `protocol error: oops\x1b[2J` {
		t.Errorf("a gopher error item's text is not sanitized: %q", got)
	}
	if _, ok := RetryAfter(err); ok {
		t.Error("RetryAfter reports a wait the server did not state")
	}
	busy := &Error{Kind: Unavailable, Err: &ReplyError{Code: 503, Text: "busy", RetryAfter: 7 * time.Second}}
	if d, ok := RetryAfter(fmt.Errorf("x: %w", busy)); !ok || d != 7*time.Second {
		t.Errorf("RetryAfter = %v, %v; want 7s, true", d, ok)
	}
	if _, ok := RetryAfter(errors.New("plain")); ok {
		t.Error("RetryAfter of a plain error")
	}
}
