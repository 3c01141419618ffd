package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// listAll lists each URL (--list): one entry URL a line, or with --json one
// object per entry with the same keys for every scheme. It returns the exit
// code of the first failure in order.
func (e *runEnv) listAll(ctx context.Context, urls iter.Seq[string]) int {
	i := 0
	for raw := range urls {
		idx := i
		i++
		if ctx.Err() != nil {
			e.failAt(idx, fetch.Wrap(fetch.Canceled, context.Cause(ctx)))
			break
		}
		req, ok := e.requestAt(idx, raw)
		if !ok {
			continue
		}
		l, err := e.client.List(ctx, req)
		if err != nil {
			e.failAt(idx, err)
			continue
		}
		err = writeListing(e.stdout, l, e.cfg.json)
		l.Close()
		var we writeError
		switch {
		case errors.As(err, &we):
			e.writeFailed(idx, req.URL.Redacted(), we.err)
		case err != nil:
			e.failAt(idx, err)
		}
		if n := l.Skipped(); n > 0 && !e.cfg.silent {
			e.errMu.Lock()
			fmt.Fprintf(e.stderr, "fetch: %s: %d listing lines could not be parsed and were skipped\n", req.URL.Redacted(), n)
			e.errMu.Unlock()
		}
	}
	e.failMu.Lock()
	defer e.failMu.Unlock()
	return e.failCode
}

// listEntry is an entry as --list --json prints it: the same keys for
// every scheme, null where the protocol did not tell.
type listEntry struct {
	Name    string  `json:"name"`
	URL     string  `json:"url"`
	Kind    string  `json:"kind"`
	Size    *int64  `json:"size"`
	ModTime *string `json:"modtime"`
	Type    *string `json:"type"`
}

// writeError is a failure to write the listing, told apart from a failure
// to read it.
type writeError struct{ err error }

func (e writeError) Error() string { return e.err.Error() }

// writeListing writes every entry of l to w.
func writeListing(w io.Writer, l *fetch.Listing, asJSON bool) error {
	bw := bufio.NewWriter(w)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for {
		ent, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			bw.Flush()
			return err
		}
		u := ""
		if ent.URL != nil {
			u = ent.URL.Redacted()
		}
		if !asJSON {
			if _, err := fmt.Fprintln(bw, u); err != nil {
				return writeError{err}
			}
			continue
		}
		obj := listEntry{Name: ent.Name, URL: u, Kind: ent.Kind.String()}
		if ent.Size >= 0 {
			obj.Size = &ent.Size
		}
		if !ent.ModTime.IsZero() {
			s := ent.ModTime.UTC().Format(time.RFC3339)
			obj.ModTime = &s
		}
		if ent.MediaType != "" {
			obj.Type = &ent.MediaType
		}
		buf.Reset()
		if err := enc.Encode(obj); err != nil {
			return writeError{err}
		}
		// A name is the server's text: no raw control may reach the
		// terminal or the parser reading this.
		if _, err := bw.Write(fetch.SanitizeJSON(buf.Bytes())); err != nil {
			return writeError{err}
		}
	}
	if err := bw.Flush(); err != nil {
		return writeError{err}
	}
	return nil
}
