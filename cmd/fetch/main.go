// Command fetch fetches the resources named by URLs of every scheme in
// RFC 1738: ftp, http, gopher, mailto, news, nntp, telnet, wais, file and
// prospero. See fetch --help and docs/CONTRACT.md, the contract it keeps.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// An interrupt cancels the transfers, so that temporary output files
	// are removed, a telnet session's terminal is restored, and the exit
	// code says what happened.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
