package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"testing"
)

func TestKindOf(t *testing.T) {
	dnsErr := &net.DNSError{Err: "no such host", Name: "nowhere.invalid"}
	tests := []struct {
		err  error
		want Kind
	}{
		{nil, 0},
		{errors.New("x"), Other},
		{Errorf(NotFound, "550 no such file"), NotFound},
		{fmt.Errorf("wrapped: %w", Errorf(Auth, "530")), Auth},
		{context.DeadlineExceeded, Timeout},
		{fmt.Errorf("read: %w", os.ErrDeadlineExceeded), Timeout},
		{dnsErr, Connect},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, Connect},
		{io.ErrUnexpectedEOF, Incomplete},
		{textproto.ProtocolError("short response"), Protocol},
	}
	for _, tt := range tests {
		if got := KindOf(tt.err); got != tt.want {
			t.Errorf("KindOf(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestErrorIsAs(t *testing.T) {
	cause := textproto.ProtocolError("bad reply")
	err := fmt.Errorf("outer: %w", &Error{Op: "fetch", URL: "ftp://h/x", Kind: Protocol, Err: cause})
	if !errors.Is(err, Protocol) {
		t.Error("errors.Is(err, Protocol) = false")
	}
	if errors.Is(err, NotFound) {
		t.Error("errors.Is(err, NotFound) = true")
	}
	var pe textproto.ProtocolError
	if !errors.As(err, &pe) || pe != cause {
		t.Error("errors.As does not reach the cause")
	}
	var fe *Error
	if !errors.As(err, &fe) || fe.URL != "ftp://h/x" {
		t.Error("errors.As(*Error) failed")
	}
	if got, want := fe.Error(), "ftp://h/x: protocol error: bad reply"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestWrap(t *testing.T) {
	if Wrap(NotFound, nil) != nil {
		t.Error("Wrap(nil) != nil")
	}
	inner := Errorf(Auth, "530")
	if got := Wrap(NotFound, inner); got != inner {
		t.Error("Wrap re-classified an *Error")
	}
	if !errors.Is(Classify(io.ErrUnexpectedEOF), Incomplete) {
		t.Error("Classify(ErrUnexpectedEOF) is not Incomplete")
	}
}

// Server text in an error cannot act on the terminal, however the handler
// put it there.
func TestErrorSanitizes(t *testing.T) {
	err := fmt.Errorf("login: %w", &Error{URL: "ftp://h/", Kind: Auth, Err: fmt.Errorf("530 %s", "\x1b]0;PWNED\x07\x1b[2J")})
	if got, want := err.Error(), `login: ftp://h/: authentication refused: 530 \x1b]0;PWNED\x07\x1b[2J`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestErrorOneLine(t *testing.T) {
	err := &Error{URL: "ftp://h/", Kind: Auth, Err: errors.New("530-Not you\r\n530 Go away\n")}
	if got, want := err.Error(), "ftp://h/: authentication refused: 530-Not you 530 Go away "; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
