package http

import (
	"context"
	"crypto/tls"
	"errors"
	"sync/atomic"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// certAskedKey is the context key of a request's certAsked flag.
type certAskedKey struct{}

// certAsked is set when a server asked the request's TLS handshake for a
// client certificate and none was sent: a failure of the exchange is
// then most likely that refusal, whatever form it took on the wire (an
// alert, a handshake_failure under TLS 1.2, or a reset before the alert
// was read).
type certAsked struct{ atomic.Bool }

// withCertAsked returns ctx carrying a fresh flag.
func withCertAsked(ctx context.Context) (context.Context, *certAsked) {
	f := new(certAsked)
	return context.WithValue(ctx, certAskedKey{}, f), f
}

// watchClientCert makes tc note in the handshake's context when the
// server asks for a client certificate that tc has none to answer with.
// It chooses the certificate as crypto/tls does without the hook: the
// first of Certificates the server accepts, else none; a hook of the
// caller's own is kept and called.
func watchClientCert(tc *tls.Config) {
	own := tc.GetClientCertificate
	certs := tc.Certificates
	tc.GetClientCertificate = func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
		var c *tls.Certificate
		if own != nil {
			var err error
			if c, err = own(cri); err != nil {
				return nil, err
			}
		} else {
			for i := range certs {
				if cri.SupportsCertificate(&certs[i]) == nil {
					c = &certs[i]
					break
				}
			}
		}
		if c == nil || len(c.Certificate) == 0 {
			if f, ok := cri.Context().Value(certAskedKey{}).(*certAsked); ok {
				f.Store(true)
			}
			return &tls.Certificate{}, nil
		}
		return c, nil
	}
}

// clientCertError returns the failure err of an exchange as the
// refusal of a missing client certificate when the server asked for one
// and none was sent, or when err is the alert saying so; else nil.
func clientCertError(f *certAsked, err error) error {
	if ce := wire.ClientCertError(err); ce != nil {
		return ce
	}
	if f == nil || !f.Load() {
		return nil
	}
	var fe *fetch.Error
	if errors.As(err, &fe) && (fe.Kind == fetch.Timeout || fe.Kind == fetch.Canceled) {
		return nil
	}
	return &fetch.Error{Kind: fetch.Auth, Err: &certErr{err}}
}

// certErr is a failure after the server asked for a client certificate
// and got none.
type certErr struct{ err error }

func (e *certErr) Error() string {
	return fetch.ErrClientCertificate.Error() + " and none was given (" + e.err.Error() + ")"
}
func (e *certErr) Unwrap() []error { return []error{fetch.ErrClientCertificate, e.err} }
