//go:build integration

package integration_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The file scheme needs no server: these tests drive the built binary
// through CONTRACT §1-§5 on local files.
func TestCLIFile(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("RFC 1738 \x00\xff\n"), 1<<20) // 12 MiB, binary-safe
	bigPath := filepath.Join(dir, "big name.bin")
	if err := os.WriteFile(bigPath, big, 0o644); err != nil {
		t.Fatal(err)
	}
	bigURL := "file://" + strings.ReplaceAll(bigPath, " ", "%20")

	r := runFetch(t, "", nil, bigURL)
	wantCode(t, r, 0, "fetch of a 12 MiB file to stdout")
	if sha256.Sum256(r.Stdout) != sha256.Sum256(big) {
		t.Fatalf("stdout differs from the file (%d bytes, want %d)", len(r.Stdout), len(big))
	}

	out := t.TempDir()
	r = runFetch(t, out, nil, "-o", "copy.bin", bigURL)
	wantCode(t, r, 0, "-o")
	if got, _ := os.ReadFile(filepath.Join(out, "copy.bin")); !bytes.Equal(got, big) {
		t.Fatal("-o file differs")
	}
	r = runFetch(t, out, nil, "-O", bigURL)
	wantCode(t, r, 0, "-O")
	if _, err := os.Stat(filepath.Join(out, "big name.bin")); err != nil {
		t.Fatalf("-O did not write the decoded name: %v", err)
	}

	// A failed -o leaves nothing behind.
	r = runFetch(t, out, nil, "-o", "none.bin", "file://"+dir+"/missing")
	wantCode(t, r, 7, "-o of a missing file")
	if _, err := os.Stat(filepath.Join(out, "none.bin")); err == nil {
		t.Fatal("a failed transfer left its output file")
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 {
		t.Fatalf("output folder holds %d entries after a failure, want 2", len(entries))
	}

	r = runFetch(t, "", nil, "-I", "--json", bigURL)
	wantCode(t, r, 0, "-I --json")
	var head map[string]any
	if err := json.Unmarshal(r.Stdout, &head); err != nil || head["size"] != float64(len(big)) || head["kind"] != "file" {
		t.Fatalf("-I --json = %s (%v)", r.Stdout, err)
	}

	r = runFetch(t, "", nil, "file://"+dir+"/")
	wantCode(t, r, 0, "directory")
	if string(r.Stdout) != "big name.bin\n" {
		t.Fatalf("directory listing = %q", r.Stdout)
	}
}

// Exit codes of CONTRACT §5 that need no server, from the real binary.
func TestCLIExitCodes(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.txt")
	os.WriteFile(ok, []byte("ok\n"), 0o644)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String() // nothing listens there once closed
	ln.Close()
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"success", []string{"file://" + ok}, 0},
		{"bad flag", []string{"--bogus", "file://" + ok}, 2},
		{"malformed", []string{"ftp://h/x;type=z"}, 3},
		{"strict refuses a raw space", []string{"--strict", "file:///a b"}, 3},
		{"unknown scheme", []string{"bogus://h/x"}, 4},
		{"file on another host", []string{"file://elsewhere.example/etc/motd"}, 4},
		{"connection refused", []string{"--connect-timeout", "5", "gopher://" + closed + "/"}, 5},
		{"missing file", []string{"file://" + dir + "/missing"}, 7},
		{"CR LF in the path", []string{"ftp://127.0.0.1/a%0D%0ADELE%20x"}, 11},
		{"another protocol's port", []string{"http://127.0.0.1:25/"}, 11},
		{"first failure wins", []string{"file://" + dir + "/missing", "bogus://h/", "file://" + ok}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFetch(t, "", nil, tt.args...)
			wantCode(t, r, tt.code, strings.Join(tt.args, " "))
			if tt.code != 0 && tt.code != 2 && !strings.Contains(string(r.Stderr), "fetch: ") {
				t.Errorf("no error line on stderr: %q", r.Stderr)
			}
		})
	}
}

// Passwords never reach stderr, whatever fails.
func TestCLINoPasswordInErrors(t *testing.T) {
	for _, u := range []string{
		"ftp://joe:Sup3rSecret@127.0.0.1:1/x",
		"ftp://joe:Sup3rSecret@127.0.0.1:2/x", // refused connection, wherever the port is allowed
		"ftp://joe:Sup3rSecret@127.0.0.1/x;type=q",
		"ftp://joe:Sup3rSecret@127.0.0.1:25/x",
	} {
		r := runFetch(t, "", nil, "-v", "--connect-timeout", "5", u)
		if r.Code == 0 || bytes.Contains(r.Stderr, []byte("Sup3rSecret")) || bytes.Contains(r.Stdout, []byte("Sup3rSecret")) {
			t.Errorf("fetch %s: exit %d, output shows the password:\n%s", u, r.Code, r.Stderr)
		}
	}
}

// parse --json for the RFC's examples, from the real binary.
func TestCLIParseJSON(t *testing.T) {
	r := runFetch(t, "", nil, "parse", "--json",
		"ftp://ftp.is.co.za/rfc/rfc1808.txt", "news:comp.infosystems.www.servers.unix",
		"gopher://spinaltap.micro.umn.edu/00/Weather/California/Los%20Angeles",
		"wais://quake.think.com/directory-of-servers?weather", "prospero://host.dom//pros/name")
	wantCode(t, r, 0, "parse --json")
	lines := strings.Split(strings.TrimSpace(string(r.Stdout)), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5", len(lines))
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		for _, k := range []string{"scheme", "user", "password", "host", "port", "path"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %s lacks %q", l, k)
			}
		}
		if _, ok := m[m["scheme"].(string)]; !ok {
			t.Errorf("line %s lacks the %s object", l, m["scheme"])
		}
	}
}
