package wire

import (
	"fmt"
	"strings"

	"github.com/rfc1738/fetch/fetch"
)

// ClientCertError returns err as a *fetch.Error of Kind Auth wrapping
// fetch.ErrClientCertificate when err is the TLS alert a server sends for a
// missing or refused client certificate (certificate_required, or
// bad_certificate, RFC 8446 §6.2), else nil.
func ClientCertError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if strings.Contains(msg, "remote error: tls: certificate required") || strings.Contains(msg, "remote error: tls: bad certificate") {
		return &fetch.Error{Kind: fetch.Auth, Err: fmt.Errorf("%w (%v)", fetch.ErrClientCertificate, err)}
	}
	return nil
}
