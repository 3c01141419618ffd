package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rfc1738/fetch/fetch"
)

// tlsConfig is what the TLS options set beyond -k and --cacert.
type tlsConfig struct {
	cert, certPass string // --cert FILE[:PASS]
	key            string // --key
	pins           string // --pinnedpubkey
	min, max       uint16 // --tlsv1.2, --tlsv1.3; --tls-max
}

// tlsOptions are the TLS options, after curl's.
var tlsOptions = []option{
	{long: "cert", short: 'E', arg: "FILE[:PASSWORD]", help: "TLS client certificate (PEM; with its key unless --key), the key's password after a colon",
		set: func(c *config, v string) error {
			c.tls.cert, c.tls.certPass = v, ""
			if _, err := os.Stat(v); err != nil {
				if i := strings.LastIndexByte(v, ':'); i > 0 {
					c.tls.cert, c.tls.certPass = v[:i], v[i+1:]
				}
			}
			return nil
		}},
	{long: "key", arg: "FILE", help: "the private key of --cert (PEM)",
		set: func(c *config, v string) error { c.tls.key = v; return nil }},
	{long: "pinnedpubkey", arg: "sha256//HASH[;...]", help: "refuse a TLS server whose public key is none of these (base64 SHA-256 of the key)",
		set: func(c *config, v string) error {
			if _, err := fetch.PinnedPublicKeys(v); err != nil {
				return err
			}
			c.tls.pins = v
			return nil
		}},
	{long: "tlsv1.2", help: "TLS 1.2 at least",
		set: func(c *config, _ string) error { c.tls.min = tls.VersionTLS12; return nil }},
	{long: "tlsv1.3", help: "TLS 1.3 at least",
		set: func(c *config, _ string) error { c.tls.min = tls.VersionTLS13; return nil }},
	{long: "tls-max", arg: "VERSION", help: "TLS VERSION (1.2, 1.3) at most",
		set: func(c *config, v string) (err error) { c.tls.max, err = fetch.ParseTLSVersion(v); return }},
}

// set reports whether any TLS option was given.
func (t *tlsConfig) set() bool {
	return t.cert != "" || t.key != "" || t.pins != "" || t.min != 0 || t.max != 0
}

// apply adds the options to tc.
func (t *tlsConfig) apply(tc *tls.Config) error {
	if t.key != "" && t.cert == "" {
		return errors.New("--key needs --cert")
	}
	if t.cert != "" {
		kp, err := fetch.LoadKeyPair(t.cert, t.key, t.certPass)
		if err != nil {
			return fmt.Errorf("--cert: %w", err)
		}
		tc.Certificates = []tls.Certificate{kp}
	}
	if t.pins != "" {
		v, err := fetch.PinnedPublicKeys(t.pins)
		if err != nil {
			return fmt.Errorf("--pinnedpubkey: %w", err)
		}
		tc.VerifyConnection = v
	}
	if t.min != 0 {
		tc.MinVersion = t.min
	}
	if t.max != 0 {
		tc.MaxVersion = t.max
	}
	if tc.MinVersion != 0 && tc.MaxVersion != 0 && tc.MinVersion > tc.MaxVersion {
		return errors.New("--tls-max is below the version asked for at least")
	}
	return nil
}
