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
