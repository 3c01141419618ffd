//go:build integration

// Package integration_test drives the built fetch binary against real
// servers from Debian's packages on 127.0.0.1, started by run.sh.
package integration_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// result is what one run of the fetch binary produced.
type result struct {
	Stdout, Stderr []byte
	Code           int
}

// fetchBin returns the path of the binary under test.
func fetchBin(t *testing.T) string {
	t.Helper()
	p := os.Getenv("FETCH_BIN")
	if p == "" {
		t.Fatal("FETCH_BIN is not set: run the integration tests through integration_test/run.sh")
	}
	return p
}

// runFetch runs the fetch binary with args and stdin (may be nil), within
// two minutes, in dir (or the test's temp dir when dir is "").
func runFetch(t *testing.T, dir string, stdin []byte, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, fetchBin(t), args...)
	if dir == "" {
		dir = t.TempDir()
	}
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	r := result{Stdout: out.Bytes(), Stderr: errb.Bytes()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("running fetch %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// env returns the setting a server script published, skipping the test
// when that server was not started, or failing it when run.sh started
// every server (FETCH_IT_REQUIRE=1) and the setting is still missing.
func env(t *testing.T, key string) string {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		if os.Getenv("FETCH_IT_REQUIRE") == "1" {
			t.Fatalf("%s is not set although every server was started", key)
		}
		t.Skipf("%s is not set: its server was not started", key)
	}
	return v
}

// wantCode fails the test unless r exited with code.
func wantCode(t *testing.T, r result, code int, what string) {
	t.Helper()
	if r.Code != code {
		t.Fatalf("%s: exit %d, want %d\nstderr: %s", what, r.Code, code, r.Stderr)
	}
}
