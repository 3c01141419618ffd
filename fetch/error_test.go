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
