package main

import (
	"context"
	"errors"
	"io"

	"github.com/rfc1738/fetch/fetch"
)

// session runs an interactive session resource (telnet): stdin is sent to
// the server and the server's output copied to stdout until either side
// closes, the context ends, or --max-time passes.
func (e *runEnv) session(ctx context.Context, res *fetch.Resource) error {
	rw, ok := res.Body.(io.ReadWriter)
	if !ok {
		return fetch.Errorf(fetch.Unsupported, "the session cannot be written to")
	}
	if e.isTerminal() {
		return interactive(ctx, rw, e.stdout)
	}
	errc := make(chan error, 2)
	go func() {
		_, err := io.Copy(e.stdout, rw)
		errc <- err
	}()
	go func() {
		_, err := io.Copy(rw, e.stdin)
		if err == nil {
			err = errStdinClosed
		}
		errc <- err
	}()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		err = fetch.Classify(context.Cause(ctx))
	}
	if errors.Is(err, errStdinClosed) {
		// Our side is done: tell the server, when the session can, and
		// collect what it still sends until it closes too (or the
		// deadline passes).
		if cw, ok := rw.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		select {
		case err = <-errc:
		case <-ctx.Done():
			err = fetch.Classify(context.Cause(ctx))
		}
	}
	res.Body.Close()
	return err
}

var errStdinClosed = errors.New("stdin closed")
