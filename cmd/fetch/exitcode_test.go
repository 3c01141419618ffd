package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/ftp"
)

// The command's exit codes, one per kind of failure.
func TestExitCodes(t *testing.T) {
	want := map[fetch.Kind]int{fetch.Other: 1, fetch.Usage: 2, fetch.Malformed: 3, fetch.Unsupported: 4,
		fetch.Connect: 5, fetch.Auth: 6, fetch.NotFound: 7, fetch.Protocol: 8, fetch.Incomplete: 9,
		fetch.Timeout: 10, fetch.Refused: 11, fetch.NotModified: 0, fetch.Unavailable: 1, fetch.Canceled: 1, fetch.TooLarge: 12,
		fetch.Kind(99): 1}
	for k, code := range want {
		if got := fetch.ExitCode(&fetch.Error{Kind: k, Err: errors.New("x")}); got != code {
			t.Errorf("fetch.ExitCode(%v) = %d, want %d", k, got, code)
		}
	}
	if fetch.ExitCode(nil) != 0 {
		t.Error("fetch.ExitCode(nil) != 0")
	}
}

// A failure's line is "fetch: URL: ...", and hints at the option that
// would change the outcome.
func TestFailureLine(t *testing.T) {
	_, errs, code := fetchCmd(t, "", "ftp://h:25/x")
	if code != 11 || !strings.HasPrefix(errs, "fetch: ftp://h:25/x: ") || !strings.Contains(errs, "--allow-port-override") {
		t.Errorf("exit %d, stderr %q; want 11 and a line naming the URL first, with the option's hint", code, errs)
	}
}

// Addresses given by options are held to the port policy, as URLs are.
func TestOptionAddressPorts(t *testing.T) {
	for _, args := range [][]string{
		{"--smtp-relay", "127.0.0.1:110", "-d", "hello", "mailto:bob@example.com"},
		{"--nntp-server", "127.0.0.1:25", "news:comp.lang.go"},
	} {
		_, errs, code := fetchCmd(t, "", args...)
		if code != 11 {
			t.Errorf("%q: exit %d (%q), want 11", args, code, errs)
		}
	}
}

// Hints name the options the library's errors do not.
func TestHints(t *testing.T) {
	auth := &fetch.Error{URL: "ftp://h/f", Kind: fetch.Auth, Err: errors.New("530 Login incorrect")}
	tests := []struct {
		err  error
		cfg  *config
		want string
	}{
		{&fetch.Error{URL: "http://h:25/", Kind: fetch.Refused, Err: fmt.Errorf("port 25: %w", fetch.ErrPortOverride)}, &config{}, "--allow-port-override"},
		{&fetch.Error{URL: "https://h/", Kind: fetch.Connect, Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, &config{}, "--cacert"},
		{auth, &config{}, "-u USER:PASS"},
		{&fetch.Error{URL: "ftp://h/f", Kind: fetch.Auth, Err: fmt.Errorf("%w", ftp.ErrNeedPassword)}, &config{}, "-u USER:PASS"},
		{auth, &config{hasUser: true}, ""},
		{&fetch.Error{URL: "ftp://joe@h/f", Kind: fetch.Auth, Err: errors.New("530")}, &config{}, ""},
		{&fetch.Error{URL: "ftp://h/f", Kind: fetch.Auth, Err: errors.New("530 (use -u USER:PASS)")}, &config{}, ""},
		{&fetch.Error{URL: "ftp://h/f", Kind: fetch.NotFound, Err: errors.New("550")}, &config{}, ""},
	}
	for _, tt := range tests {
		got := hint(tt.err, tt.cfg)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) || tt.want != "" && strings.Count(got, tt.want) != 1 {
			t.Errorf("hint(%v) = %q, want one naming %q", tt.err, got, tt.want)
		}
	}
}
