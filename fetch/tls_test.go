package fetch_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

func TestPinnedPublicKeys(t *testing.T) {
	const zero = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	for _, bad := range []string{"md5//abc", "sha256//not base64", "sha256//AAAA", "/etc/key.pem"} {
		if _, err := fetch.PinnedPublicKeys(bad); !errors.Is(err, fetch.Usage) {
			t.Errorf("PinnedPublicKeys(%q) = %v, want Kind Usage", bad, err)
		}
	}
	verify, err := fetch.PinnedPublicKeys(zero + "; " + zero)
	if err != nil {
		t.Fatal(err)
	}
	cs := tls.ConnectionState{PeerCertificates: []*x509.Certificate{{RawSubjectPublicKeyInfo: []byte("key")}}}
	if err := verify(cs); !errors.Is(err, fetch.ErrPinnedKey) {
		t.Errorf("verify = %v, want ErrPinnedKey", err)
	}
}

func TestParseTLSVersion(t *testing.T) {
	for in, want := range map[string]uint16{"1.2": tls.VersionTLS12, "1.3": tls.VersionTLS13, "1.0": tls.VersionTLS10} {
		if v, err := fetch.ParseTLSVersion(in); err != nil || v != want {
			t.Errorf("ParseTLSVersion(%q) = %x, %v", in, v, err)
		}
	}
	if _, err := fetch.ParseTLSVersion("1.4"); !errors.Is(err, fetch.Usage) {
		t.Errorf("ParseTLSVersion(1.4) = %v", err)
	}
}
