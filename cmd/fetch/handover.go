package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/rfc1738/fetch/fetch"
)

// queueProgram is the program that runs the work-queue commands (enqueue,
// worker, results). It is a module of its own, so that fetch links no
// NATS code; fetch hands those commands over to it.
const queueProgram = "fetch-queue"

// queueInstall is how to install queueProgram, named when it is missing.
const queueInstall = "go install ./queue/cmd/fetch-queue (in fetch's source tree), beside fetch or on PATH"

// findQueueProgram returns the path of queueProgram: the one beside the
// running executable, else the first on PATH.
func findQueueProgram() (string, error) {
	name := queueProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		if self, err := filepath.EvalSymlinks(self); err == nil {
			p := filepath.Join(filepath.Dir(self), name)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, nil
			}
		}
	}
	return exec.LookPath(queueProgram)
}

// handOver runs "fetch-queue CMD ARGS..." for "fetch CMD ARGS...", with
// the same standard streams, and returns its exit code. Where the streams
// are the process's own, on Unix, fetch becomes fetch-queue (exec), so
// that the process a caller started and signals is the one doing the
// work; elsewhere fetch runs it as a child and waits.
func handOver(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	path, err := findQueueProgram()
	if err != nil {
		fmt.Fprintf(stderr, "fetch %s: the queue commands are in the program %s, found neither beside fetch nor on PATH; install it: %s\n",
			args[0], queueProgram, queueInstall)
		return fetch.ExitCode(fetch.Errorf(fetch.Unsupported, ""))
	}
	if stdin == os.Stdin && stdout == os.Stdout && stderr == os.Stderr {
		err := execInPlace(path, append([]string{queueProgram}, args...))
		// Only a failed exec returns.
		if !errors.Is(err, errors.ErrUnsupported) {
			fmt.Fprintf(stderr, "fetch %s: running %s: %v\n", args[0], path, err)
			return 1
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "fetch %s: running %s: %v\n", args[0], path, err)
		return 1
	}
	// An interrupt of fetch reaches the child from the terminal; a
	// cancelled ctx (SIGTERM to fetch) is passed on as an interrupt.
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			stopChild(cmd.Process)
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	case errors.As(err, &ee):
		return 1 // killed by a signal
	}
	fmt.Fprintf(stderr, "fetch %s: %s: %v\n", args[0], path, err)
	return 1
}
