//go:build integration

// Package integration_test drives fetch-queue, through the fetch binary
// that hands it the queue commands, against Debian's nats-server (a
// cluster of three, started by ../../integration_test/servers/nats.sh, or
// clusters the tests start, kill and restart themselves) and against the
// embedded server. Run it through ../../integration_test/run.sh.
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

// fetchBin returns the path of the fetch binary, with fetch-queue beside
// it.
func fetchBin(t *testing.T) string {
	t.Helper()
	p := os.Getenv("FETCH_BIN")
	if p == "" {
		t.Fatal("FETCH_BIN is not set: run the integration tests through integration_test/run.sh")
	}
	return p
}

// runFetch runs the fetch binary with args and stdin (may be nil), within
// two minutes.
func runFetch(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, fetchBin(t), args...)
	cmd.Dir = t.TempDir()
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

// wantCode fails the test unless r exited with code.
func wantCode(t *testing.T, r result, code int, what string) {
	t.Helper()
	if r.Code != code {
		t.Fatalf("%s: exit %d, want %d\nstderr: %s", what, r.Code, code, r.Stderr)
	}
}
