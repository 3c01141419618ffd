package fetch

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrClientCertificate is the cause of a failure because the server
// requires a client certificate and none was given, or refused the one
// given. Such a failure is of Kind Auth.
var ErrClientCertificate = errors.New("the server requires a client certificate")

// LoadKeyPair reads a client certificate and its private key from PEM
// files, as curl's --cert and --key: keyFile may be empty when certFile
// holds the key too. A key in legacy encrypted PEM ("Proc-Type:
// 4,ENCRYPTED") is decrypted with password. Errors are of Kind Usage.
func LoadKeyPair(certFile, keyFile, password string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, &Error{Kind: Usage, Err: err}
	}
	keyPEM := certPEM
	if keyFile != "" {
		if keyPEM, err = os.ReadFile(keyFile); err != nil {
			return tls.Certificate{}, &Error{Kind: Usage, Err: err}
		}
	}
	keyPEM, err = decryptKey(keyPEM, password)
	if err != nil {
		return tls.Certificate{}, Errorf(Usage, "the key of %s: %w", certFile, err)
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, Errorf(Usage, "%s: %w", certFile, err)
	}
	return c, nil
}

// decryptKey returns the PEM blocks of b with every legacy-encrypted
// private key decrypted with password; other blocks are kept as they are.
func decryptKey(b []byte, password string) ([]byte, error) {
	var out bytes.Buffer
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return out.Bytes(), nil
		}
		//lint:ignore SA1019 legacy encrypted PEM is what OpenSSL and curl users hold; it is read, never written
		if x509.IsEncryptedPEMBlock(blk) {
			if password == "" {
				return nil, errors.New("the key is encrypted: give its password (--cert FILE:PASSWORD)")
			}
			//lint:ignore SA1019 see above
			der, err := x509.DecryptPEMBlock(blk, []byte(password))
			if err != nil {
				return nil, errors.New("the key's password is wrong")
			}
			blk = &pem.Block{Type: blk.Type, Bytes: der}
		} else if blk.Type == "ENCRYPTED PRIVATE KEY" {
			return nil, errors.New("a PKCS #8 encrypted key is not supported: decrypt it first (openssl pkcs8)")
		}
		pem.Encode(&out, blk)
	}
}

// PinnedPublicKeys returns a tls.Config.VerifyConnection function that
// accepts a connection only when the server's certificate has one of the
// public keys pins names, as curl's --pinnedpubkey: "sha256//BASE64",
// several joined by ';'. The check adds to the certificate's
// verification; it does not replace it. Errors are of Kind Usage.
func PinnedPublicKeys(pins string) (func(tls.ConnectionState) error, error) {
	var hashes [][]byte
	for _, p := range strings.Split(pins, ";") {
		p = strings.TrimSpace(p)
		b64, ok := strings.CutPrefix(p, "sha256//")
		if !ok {
			return nil, Errorf(Usage, "pinned key %q: want sha256//BASE64 (a file of the key is not supported)", p)
		}
		h, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(h) != sha256.Size {
			return nil, Errorf(Usage, "pinned key %q: not the base64 of a SHA-256 hash", p)
		}
		hashes = append(hashes, h)
	}
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return ErrPinnedKey
		}
		got := sha256.Sum256(cs.PeerCertificates[0].RawSubjectPublicKeyInfo)
		for _, h := range hashes {
			if subtle.ConstantTimeCompare(h, got[:]) == 1 {
				return nil
			}
		}
		return fmt.Errorf("%w: the server's is sha256//%s", ErrPinnedKey, base64.StdEncoding.EncodeToString(got[:]))
	}, nil
}

// ErrPinnedKey is the cause of a refused connection whose server's public
// key is none of those pinned.
var ErrPinnedKey = errors.New("the server's public key is not the one pinned")

// ParseTLSVersion returns the TLS version named "1.0", "1.1", "1.2" or
// "1.3".
func ParseTLSVersion(s string) (uint16, error) {
	switch s {
	case "1.0", "1":
		return tls.VersionTLS10, nil
	case "1.1":
		return tls.VersionTLS11, nil
	case "1.2":
		return tls.VersionTLS12, nil
	case "1.3":
		return tls.VersionTLS13, nil
	}
	return 0, Errorf(Usage, "TLS version %q: want 1.0, 1.1, 1.2 or 1.3", s)
}
