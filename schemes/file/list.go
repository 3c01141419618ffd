package file

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

var _ fetch.Lister = (*Handler)(nil)

// listBatch is how many directory entries are read at a time.
const listBatch = 256

// List yields the entries of the directory the URL names, streamed in the
// directory's own order (not sorted), a batch at a time: Name the file
// name, URL the entry's file URL (a directory's ending in "/"), Kind
// ResourceDirectory or ResourceFile, Size (-1 for directories) and ModTime from the
// file system, MediaType guessed from the name. An entry that vanishes
// while the directory is read is skipped. A URL naming a file, not a
// directory, is Kind Unsupported.
func (h *Handler) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	p, err := localPath(req.URL)
	if err != nil {
		return nil, err
	}
	req.Trace.Notef("open %s", p)
	f, err := os.Open(p)
	if err != nil {
		return nil, classify(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, classify(err)
	}
	if !fi.IsDir() {
		f.Close()
		return nil, fetch.Errorf(fetch.Unsupported, "%s is not a directory: only directories can be listed", p)
	}
	base := req.URL.String()
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	var batch []os.DirEntry
	next := func() (fetch.Entry, error) {
		for {
			if err := ctx.Err(); err != nil {
				return fetch.Entry{}, fetch.Classify(context.Cause(ctx))
			}
			if len(batch) == 0 {
				var err error
				batch, err = f.ReadDir(listBatch)
				if len(batch) == 0 {
					if err == nil || err == io.EOF {
						return fetch.Entry{}, io.EOF
					}
					return fetch.Entry{}, classify(err)
				}
			}
			d := batch[0]
			batch = batch[1:]
			info, err := d.Info()
			if err != nil {
				continue // removed since the directory was read
			}
			name := d.Name()
			e := fetch.Entry{Name: name, Kind: fetch.ResourceFile, Size: info.Size(), ModTime: info.ModTime()}
			ref := url.EscapeSegment(name)
			switch {
			case info.IsDir():
				e.Kind, e.Size = fetch.ResourceDirectory, -1
				ref += "/"
			case info.Mode().IsRegular():
				e.MediaType = guessType(name)
			default:
				e.Size = -1 // a pipe, device or socket
			}
			u, err := url.Parse(base + ref)
			if err != nil {
				return fetch.Entry{}, fetch.Errorf(fetch.Malformed, "the entry %q makes no URL: %w", fetch.Sanitize(name), fetch.ErrUnparsed)
			}
			e.URL = u
			return e, nil
		}
	}
	return fetch.NewListing(next, f), nil
}
