package main

import (
	"strings"
	"testing"
)

// TestMalformedURLHidesPassword runs fetch and fetch parse (text, --json,
// --strict) on malformed URLs of every login shape: no output shows the
// password, and each exits 3.
func TestMalformedURLHidesPassword(t *testing.T) {
	for _, u := range []string{
		"ftp://u:S3cr3tPw#x@h/f",
		"ftp://u:x#S3cr3tPw@h/f",
		"ftp:/u:S3cr3tPw@h/",
		"ftp:u:S3cr3tPw@h/",
		"news://u:S3cr3tPw@h/g",
	} {
		for _, args := range [][]string{
			{"-m", "5", u},
			{"--strict", "-m", "5", u},
			{"parse", u},
			{"parse", "--json", u},
			{"parse", "--strict", u},
		} {
			out, errs, code := fetchCmd(t, "", args...)
			if code != 3 {
				t.Errorf("fetch %q: exit %d, want 3 (%s%s)", args, code, out, errs)
			}
			for _, part := range []string{"S3cr", "3cr3", "cr3t", "r3tP", "3tPw"} {
				if strings.Contains(out+errs, part) {
					t.Errorf("fetch %q shows the password: %s%s", args, out, errs)
					break
				}
			}
		}
	}
}

// TestParseHelp: fetch parse --help and -h print its usage and exit 0; an
// unknown option is a usage error.
func TestParseHelp(t *testing.T) {
	for _, h := range []string{"--help", "-h"} {
		out, errs, code := fetchCmd(t, "", "parse", h)
		if code != 0 || !strings.Contains(out, "Usage: fetch parse") || !strings.Contains(out, "--normalize") || errs != "" {
			t.Errorf("fetch parse %s: exit %d, stdout %q, stderr %q", h, code, out, errs)
		}
	}
	if _, errs, code := fetchCmd(t, "", "parse", "--bogus", "http://h/"); code != 2 || !strings.Contains(errs, "unknown option") {
		t.Errorf("fetch parse --bogus: exit %d, %q", code, errs)
	}
	if out, _, code := fetchCmd(t, "", "--help"); code != 0 || !strings.Contains(out, "fetch parse --help") {
		t.Errorf("fetch --help does not point to fetch parse --help (exit %d)", code)
	}
}

// TestParseNormalize: --normalize prints one normalized URL a line, in
// order; with --json each object gains a "normalized" key; a malformed URL
// is reported and the others still printed, exit 3.
func TestParseNormalize(t *testing.T) {
	out, errs, code := fetchCmd(t, "", "parse", "--normalize",
		"HTTP://WWW.Example.ORG:80", "gopher://h/", "ftp://h:21/%7Epub/%61;type=A#x", "file://localhost/etc/motd")
	want := "http://www.example.org/\ngopher://h/1\nftp://h/%7Epub/a;type=a\nfile:///etc/motd\n"
	if code != 0 || out != want {
		t.Errorf("fetch parse --normalize: exit %d (%s)\n got %q\nwant %q", code, errs, out, want)
	}
	out, _, code = fetchCmd(t, "", "parse", "--json", "--normalize", "http://H:80")
	wantJSON := `{"scheme":"http","user":null,"password":null,"host":"H","port":80,"path":"","normalized":"http://h/","http":{"path":"/","search":null}}`
	if code != 0 || strings.TrimSpace(out) != wantJSON {
		t.Errorf("fetch parse --json --normalize: exit %d\n got %s\nwant %s", code, out, wantJSON)
	}
	out, errs, code = fetchCmd(t, "", "parse", "--normalize", "--strict", "http://h/a b", "http://h:80/")
	if code != 3 || out != "http://h/\n" || !strings.Contains(errs, "offset 10") {
		t.Errorf("fetch parse --normalize with a malformed URL: exit %d, %q, %q", code, out, errs)
	}
}

// TestLoginShapeHidden: a URL without "//" that parses (an unknown scheme,
// news) but whose text has a login's shape shows no password in fetch's
// error line nor in fetch parse's text.
func TestLoginShapeHidden(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"x-foo:/u:S3cr3tPw@h/"}, 4},
		{[]string{"x-foo:u:S3cr3tPw@h/"}, 4},
		{[]string{"parse", "x-foo:/u:S3cr3tPw@h/"}, 0},
		{[]string{"parse", "news:u:S3cr%33tPw@h"}, 0},
	} {
		out, errs, code := fetchCmd(t, "", tt.args...)
		if code != tt.code || strings.Contains(out+errs, "S3cr") || strings.Contains(out+errs, "tPw") {
			t.Errorf("fetch %q: exit %d (want %d), output %s%s", tt.args, code, tt.code, out, errs)
		}
	}
}
