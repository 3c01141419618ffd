package wire_test

import (
	"errors"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

func TestClientCertError(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		want bool
	}{
		{"remote error: tls: certificate required", true},
		{"read tcp: remote error: tls: bad certificate", true},
		{"remote error: tls: handshake failure", false},
		{"connection reset by peer", false},
	} {
		err := wire.ClientCertError(errors.New(tt.msg))
		if got := err != nil && errors.Is(err, fetch.ErrClientCertificate) && errors.Is(err, fetch.Auth); got != tt.want {
			t.Errorf("ClientCertError(%q) = %v, want one: %v", tt.msg, err, tt.want)
		}
	}
}
