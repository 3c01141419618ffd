package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/warc"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
)

// warcSink is the WARC file of --warc-file. Its zero value, with no path,
// records nothing.
type warcSink struct {
	path   string
	decode bool // HTTP bodies are recorded as sent and decoded for the output
	f      *os.File
	w      *warc.Writer
}

// prepare, called before the http handler is registered, makes it deliver
// bodies as sent (gzip still on), so that the WARC file records them so;
// unless --raw asked for them encoded, do decodes them again for the
// output.
func (s *warcSink) prepare(h *httpscheme.Handler) {
	if s.path == "" {
		return
	}
	s.decode = !h.Raw
	h.Raw = true
}

// start creates the file and makes cl report the addresses it dials, for
// WARC-IP-Address. It does nothing without --warc-file.
func (s *warcSink) start(cl *fetch.Client) error {
	if s.path == "" {
		return nil
	}
	f, err := os.Create(s.path)
	if err != nil {
		return fmt.Errorf("--warc-file: %w", err)
	}
	s.f = f
	s.w = warc.NewWriter(f, warc.Options{
		Gzip:     strings.HasSuffix(s.path, ".gz"),
		Filename: filepath.Base(s.path),
		Software: "fetch/" + version,
	})
	cl.DialContext = s.w.Dial(cl.DialContext)
	if _, err := s.w.WriteInfo(); err != nil {
		return fmt.Errorf("--warc-file: %w", err)
	}
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
	if s.f == nil {
		return nil
	}
	if err := s.f.Close(); err != nil {
		return fmt.Errorf("--warc-file: %w", err)
	}
	return nil
}
