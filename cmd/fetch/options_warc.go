package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/warc"
	httpscheme "github.com/rfc1738/fetch/schemes/http"
)

// warcOptions are the options of WARC recording (fetch/warc).
var warcOptions = []option{
	{long: "warc-file", arg: "FILE",
		help: "also record every fetch as WARC/1.1 records in FILE (gzip per record when FILE ends in .gz)",
		set:  func(c *config, v string) error { c.warc.path = v; return nil }},
	{long: "warc-max-size", arg: "BYTES",
		help: "with --warc-file, start a new file (FILE-00001.warc.gz, ...) once one holds BYTES (k, M, G)",
		set:  func(c *config, v string) (err error) { c.warc.maxSize, err = byteCount(v); return }},
	{long: "warc-cdx", help: "with --warc-file, also write a CDXJ index of its records (pywb's format), sorted, beside it (NAME.cdxj for NAME.warc.gz)",
		set: func(c *config, _ string) error { c.warc.cdx = true; return nil }},
}

// warcSink is the WARC file of --warc-file. Its zero value, with no path,
// records nothing.
type warcSink struct {
	path    string
	maxSize int64 // --warc-max-size; 0: one file
	cdx     bool  // --warc-cdx
	decode  bool  // HTTP bodies are recorded as sent and decoded for the output
	f       *os.File
	w       *warc.Writer
	n       int           // files after the first, for their names
	index   *bytes.Buffer // the CDXJ lines, sorted and written at the end
}

// rotatedName is the name of the n-th file after FILE: "-00001" before
// its ".warc" (or ".warc.gz"), else at its end.
func rotatedName(path string, n int) string {
	suffix := fmt.Sprintf("-%05d", n)
	for _, ext := range []string{".warc.gz", ".warc", ".gz"} {
		if strings.HasSuffix(path, ext) {
			return strings.TrimSuffix(path, ext) + suffix + ext
		}
	}
	return path + suffix
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
	opts := warc.Options{
		Gzip:     strings.HasSuffix(s.path, ".gz"),
		Filename: filepath.Base(s.path),
		Software: "fetch/" + version,
		Revisits: true, // an identical payload again is a revisit record
		MaxSize:  s.maxSize,
		Rotate:   s.rotate,
	}
	if s.cdx {
		s.index = &bytes.Buffer{}
		opts.Index = s.index
	}
	s.w = warc.NewWriter(f, opts)
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

// rotate closes the current file and creates the next, for
// --warc-max-size. The Writer calls it between records.
func (s *warcSink) rotate() (io.Writer, string, error) {
	if err := s.f.Close(); err != nil {
		return nil, "", err
	}
	s.n++
	name := rotatedName(s.path, s.n)
	f, err := os.Create(name)
	if err != nil {
		return nil, "", err
	}
	s.f = f
	return f, filepath.Base(name), nil
}

// finish closes the file, and writes the index, sorted, with --warc-cdx.
func (s *warcSink) finish() error {
	if s.f == nil {
		return nil
	}
	if err := s.f.Close(); err != nil {
		return fmt.Errorf("--warc-file: %w", err)
	}
	if s.index != nil {
		lines := strings.SplitAfter(s.index.String(), "\n")
		slices.Sort(lines)
		if err := os.WriteFile(strings.TrimSuffix(strings.TrimSuffix(s.path, ".gz"), ".warc")+".cdxj", []byte(strings.Join(lines, "")), 0o644); err != nil {
			return fmt.Errorf("--warc-cdx: %w", err)
		}
	}
	return nil
}
