package main

import (
	"context"
	"fmt"
	"io"
)

// run is the whole command: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "fetch: %v\n", err)
		return 2
	}
	_ = c
	return 0
}
