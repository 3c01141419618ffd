//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "fetch worker ..." runs fetch-queue found on PATH (none is beside the
// test binary) with the same arguments and streams, and exits with its
// code.
func TestHandOverToQueueProgram(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"args:$*\"\nread line\necho \"stdin:$line\"\necho oops >&2\nexit 7\n"
	if err := os.WriteFile(filepath.Join(dir, queueProgram), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"worker", "--store", "d", "--drain"}, strings.NewReader("hello\n"), &out, &errb)
	if code != 7 || out.String() != "args:worker --store d --drain\nstdin:hello\n" || errb.String() != "oops\n" {
		t.Errorf("code %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// Without fetch-queue, the queue commands name how to install it and exit
// 4: an operation this installation does not have.
func TestHandOverWithoutQueueProgram(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, cmd := range []string{"enqueue", "worker", "results"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{cmd, "--json"}, strings.NewReader(""), &out, &errb)
		if code != 4 || out.Len() != 0 || !strings.Contains(errb.String(), "go install ./queue/cmd/fetch-queue") {
			t.Errorf("fetch %s: code %d, stdout %q, stderr %q", cmd, code, out.String(), errb.String())
		}
	}
}
