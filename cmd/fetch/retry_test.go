package main

import (
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
)

// closedPort returns a 127.0.0.1 address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// --retry retries a transient failure with a growing, positive wait, and
// never retries sending mail.
func TestRetry(t *testing.T) {
	addr := closedPort(t)
	_, errs, code := fetchCmd(t, "", "--retry", "1", "http://"+addr+"/")
	m := regexp.MustCompile(`retrying in ([0-9.]+m?s) \(1 of 1\)`).FindStringSubmatch(errs)
	if code != 5 || m == nil {
		t.Fatalf("exit %d, stderr %q; want 5 after one retry", code, errs)
	}
	if d, err := time.ParseDuration(m[1]); err != nil || d < 500*time.Millisecond || d > time.Second {
		t.Errorf("first wait %s, want 0.5s to 1s", m[1])
	}
	_, errs, code = fetchCmd(t, "", "--retry", "3", "--smtp-relay", addr, "-d", "hi", "mailto:bob@example.com")
	if code != 5 || strings.Contains(errs, "retrying") {
		t.Errorf("mailto: exit %d, stderr %q; want 5 and no retry", code, errs)
	}
}
