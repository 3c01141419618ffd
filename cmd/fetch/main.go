// Command fetch fetches the resources named by URLs of every scheme in
// RFC 1738: ftp, http, gopher, mailto, news, nntp, telnet, wais, file and
// prospero. See fetch --help and CONTRACT.md.
package main

import (
	"context"
	"os"
)

func main() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
