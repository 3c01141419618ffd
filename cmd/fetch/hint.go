package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/ftp"
	"github.com/rfc1738/fetch/schemes/mailto"
	"github.com/rfc1738/fetch/schemes/nntp"
)

// hints say which option would change a failure's outcome. The library's
// errors name no options; the command adds the hint to the failure's line
// (unless the message, or an earlier hint, already names the option).
var hints = []struct {
	option string
	text   string
	match  func(err error, c *config) bool
}{
	{"--allow-port-override", " (use --allow-port-override to permit it)", func(err error, _ *config) bool {
		return errors.Is(err, fetch.ErrPortOverride)
	}},
	{"--cacert", " (see --cacert and --insecure)", func(err error, _ *config) bool {
		var cv *tls.CertificateVerificationError
		var ua x509.UnknownAuthorityError
		var he x509.HostnameError
		var ci x509.CertificateInvalidError
		return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci)
	}},
	{"--cert", " (see --cert and --key)", func(err error, _ *config) bool {
		return errors.Is(err, fetch.ErrClientCertificate)
	}},
	{"--pinnedpubkey", " (see --pinnedpubkey)", func(err error, _ *config) bool {
		return errors.Is(err, fetch.ErrPinnedKey)
	}},
	{"--nntp-server", " (give one with --nntp-server HOST[:PORT] or NNTPSERVER)", func(err error, _ *config) bool {
		return errors.Is(err, nntp.ErrNoServer)
	}},
	{"--smtp-relay", " (give one with --smtp-relay HOST[:PORT] or FETCH_SMTP)", func(err error, _ *config) bool {
		return errors.Is(err, mailto.ErrNoRelay)
	}},
	{"-u USER:PASS", " (give the password with -u USER:PASS or --netrc)", func(err error, _ *config) bool {
		return errors.Is(err, ftp.ErrNeedPassword)
	}},
	{"-u USER:PASS", " (give credentials with -u USER:PASS or --netrc)", func(err error, c *config) bool {
		return fetch.KindOf(err) == fetch.Auth && c != nil && !c.hasUser && !c.netrc && !urlHasUser(err)
	}},
}

// hint returns what the command adds to a failure's line, or "".
func hint(err error, c *config) string {
	msg := err.Error()
	var b strings.Builder
	for _, h := range hints {
		if !strings.Contains(msg, h.option) && !strings.Contains(b.String(), h.option) && h.match(err, c) {
			b.WriteString(h.text)
		}
	}
	return b.String()
}

// urlHasUser reports whether the URL a failure names carries a user name.
func urlHasUser(err error) bool {
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		return false
	}
	_, rest, ok := strings.Cut(fe.URL, "://")
	if !ok {
		return false
	}
	host, _, _ := strings.Cut(rest, "/")
	return strings.Contains(host, "@")
}
