package main

import (
	"context"
	"fmt"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/warc"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
)

// warcSink is the WARC file of --warc-file. Its zero value, with no path,
// records nothing.
type warcSink struct {
	path   string
	decode bool // HTTP bodies are recorded as sent and decoded for the output
	w      *warc.File
}

// prepare, called before the http handler is registered, makes it deliver
// bodies as sent (gzip still on), so that the WARC file records them so;
// unless --raw asked for them encoded, do decodes them for the output,
// once. Every path of the handler needs it (its own client's http and
// https, direct or through a tunnel, and net/http's HTTP/2): a Capture
// keeps the heads as sent, but the body recorded is the one read from the
// Resource (TestWARCFile).
func (s *warcSink) prepare(h *httpscheme.Handler) {
	if s.path == "" {
		return
	}
	s.decode = !h.Raw
	h.Raw = true
}

// start creates the file (see warc.Create) and makes cl report the
// addresses it dials, for WARC-IP-Address. It does nothing without
// --warc-file.
func (s *warcSink) start(cl *fetch.Client) error {
	if s.path == "" {
		return nil
	}
	w, err := warc.Create(s.path, warc.FileOptions{Options: warc.Options{Software: "fetch/" + version}})
	if err != nil {
		return fmt.Errorf("--warc-file: %w", err)
	}
	s.w = w
	cl.DialContext = s.w.Dial(cl.DialContext)
	return nil
}

// do fetches req with cl; with --warc-file, the fetch is recorded when its
// Body is closed (a failure to record is then Close's error).
func (s *warcSink) do(ctx context.Context, cl *fetch.Client, req *fetch.Request) (*fetch.Resource, error) {
	if s.w == nil {
		return cl.Do(ctx, req)
	}
	res, err := s.w.Do(ctx, cl, req)
	if err != nil || !s.decode {
		return res, err
	}
	httpscheme.Decode(res) // gzip, br, zstd: as the handler decodes them
	return res, nil
}

// finish closes the file.
func (s *warcSink) finish() error {
	if s.w == nil {
		return nil
	}
	if err := s.w.Close(); err != nil {
		return fmt.Errorf("--warc-file: %w", err)
	}
	return nil
}
