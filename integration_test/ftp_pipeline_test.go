//go:build integration

package integration_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// together is SIZE and EPSV in a -v trace, both sent before SIZE's reply.
var together = regexp.MustCompile(`> SIZE [^\n]*\n> EPSV\n< 213 `)

// TestFTPPipelined: each server takes a file's SIZE and EPSV sent
// together (both go out before SIZE's reply is read), for two files over
// one connection, without falling back to a command at a time.
func TestFTPPipelined(t *testing.T) {
	tests := []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"vsftpd", func(t *testing.T) []string {
			return []string{ftpBase(t) + "/small/f001.bin", ftpBase(t) + "/small/f002.bin"}
		}},
		{"vsftpd AUTH TLS", func(t *testing.T) []string {
			b := "ftp://" + env(t, "FETCH_IT_FTP_TLS_ADDR")
			return []string{"--ftp-ssl", "--cacert", env(t, "FETCH_IT_FTP_CA"), b + "/small/f001.bin", b + "/small/f002.bin"}
		}},
		{"proftpd", func(t *testing.T) []string {
			return []string{proftpdBase(t) + "/pub/data.bin", proftpdBase(t) + "/pub/data.bin"}
		}},
		{"pure-ftpd", func(t *testing.T) []string {
			return []string{pureftpdBase(t) + "/pub/text.txt;type=i", pureftpdBase(t) + "/pub/text.txt;type=i"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFetch(t, "", nil, append([]string{"-v"}, tt.args(t)...)...)
			wantCode(t, r, 0, tt.name)
			if n := len(together.FindAll(r.Stderr, -1)); n != 2 || strings.Contains(string(r.Stderr), "one at a time") {
				t.Errorf("SIZE and EPSV not sent together for both files:\n%s", r.Stderr)
			}
			if n := bytes.Count(r.Stderr, []byte("> USER ")); n != 1 {
				t.Errorf("%d logins, want 1", n)
			}
		})
	}
}
