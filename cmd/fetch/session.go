package main

import (
	"context"
	"io"
	"os"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/schemes/telnet"
)

// session runs an interactive session resource (telnet, RFC 1738 §3.8). On
// a terminal it is a real interactive session: raw mode, every key to the
// server, Ctrl-] to quit, the terminal restored on every way out. Otherwise
// stdin is sent to the server and its output copied to stdout until the
// server closes, the context ends (--max-time), or, once stdin is
// exhausted, the server has been quiet for telnet.DefaultLinger.
func (e *runEnv) session(ctx context.Context, res *fetch.Resource) error {
	rw, ok := res.Body.(io.ReadWriter)
	if !ok {
		return fetch.Errorf(fetch.Unsupported, "the session cannot be written to")
	}
	if f, ok := e.stdin.(*os.File); ok && e.isTerminal() {
		resized, stop := notifyResize()
		defer stop()
		return telnet.Interact(ctx, rw, f, e.stdout, resized)
	}
	return telnet.Pipe(ctx, rw, e.stdin, e.stdout, 0)
}
