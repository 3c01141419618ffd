package main

import (
	"strings"
	"testing"
)

// TestServerHints checks that the command, not the library, names the
// option that configures a missing news server or SMTP relay.
func TestServerHints(t *testing.T) {
	t.Setenv("NNTPSERVER", "")
	t.Setenv("FETCH_SMTP", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"news:comp.lang.go"}, "--nntp-server"},
		{[]string{"-d", "hi", "mailto:bob@example.com"}, "--smtp-relay"},
	} {
		_, errs, code := fetchCmd(t, "", tc.args...)
		if code != 2 || strings.Count(errs, tc.want) != 1 {
			t.Errorf("fetch %q: exit %d, stderr %q; want 2 and one hint naming %s", tc.args, code, errs, tc.want)
		}
	}
}
