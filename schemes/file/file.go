// Package file implements the file scheme of RFC 1738 §3.10: access to
// files on this machine. "file:///p" and "file://localhost/p" name the local
// file /p; a file URL naming any other host is not reachable from here, for
// the RFC gives no protocol to reach it.
package file

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Handler reads local files and directories. A file is read to the size it
// had when it was opened: bytes appended while it is read are not
// delivered, so Size is always the length of Body. A directory yields its
// entries' names, one a line, sorted, each ending in '\n'. The zero Handler
// is ready to use.
type Handler struct{}

var (
	_ fetch.Handler = (*Handler)(nil)
	_ fetch.Planner = (*Handler)(nil)
)

// localPath returns the local path a file URL names, or an *fetch.Error.
func localPath(u *url.URL) (string, error) {
	v := u.File()
	if v.Host != "" && !strings.EqualFold(v.Host, "localhost") {
		return "", fetch.Errorf(fetch.Unsupported, "file URL names host %q: RFC 1738 §3.10 defines no protocol to reach another machine's files", v.Host)
	}
	for _, s := range v.Segments {
		if strings.IndexByte(s, '/') >= 0 {
			return "", fetch.Errorf(fetch.Malformed, "path segment %q holds an encoded '/', which no file name can contain", s)
		}
		if strings.IndexByte(s, 0) >= 0 {
			return "", fetch.Errorf(fetch.Refused, "path holds a decoded NUL (RFC 1738 §6)")
		}
	}
	return v.Path, nil
}

// Plan states what Fetch would do: open the local path.
func (h *Handler) Plan(req *fetch.Request) ([]string, error) {
	p, err := localPath(req.URL)
	if err != nil {
		return nil, err
	}
	return []string{"open " + p}, nil
}

// Fetch opens the file or directory the URL names. With
// req.IfModifiedSince set, a file or directory not modified after then
// fails with Kind NotModified. A file's MediaType is guessed from its name
// (MediaTypeGuessed is then true).
func (h *Handler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	p, err := localPath(req.URL)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fetch.Classify(err)
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
	if since := req.IfModifiedSince; !since.IsZero() && !fi.ModTime().After(since) {
		f.Close()
		return nil, fetch.Errorf(fetch.NotModified, "not modified since %s (modified %s)", since.UTC().Format(time.RFC3339), fi.ModTime().UTC().Format(time.RFC3339))
	}
	res := &fetch.Resource{URL: req.URL, Size: -1, ModTime: fi.ModTime()}
	if fi.IsDir() {
		res.Kind = fetch.ResourceDirectory
		if req.Head {
			f.Close()
			res.Body = fetch.NoBody
			return res, nil
		}
		res.Body = newDirBody(ctx, f)
		return res, nil
	}
	if !fi.Mode().IsRegular() {
		// A pipe or device: stream it as it comes, size unknown.
		res.Kind = fetch.ResourceFile
		if req.Head {
			f.Close()
			res.Body = fetch.NoBody
			return res, nil
		}
		res.Body = newFileBody(ctx, f, -1)
		return res, nil
	}
	res.Kind = fetch.ResourceFile
	res.Size = fi.Size()
	res.MediaType = guessType(p)
	res.MediaTypeGuessed = res.MediaType != ""
	if req.Head {
		f.Close()
		res.Body = fetch.NoBody
		return res, nil
	}
	if req.Offset > 0 {
		if req.Offset > res.Size {
			f.Close()
			return nil, fetch.Errorf(fetch.Other, "cannot resume at byte %d: the file has only %d", req.Offset, res.Size)
		}
		if _, err := f.Seek(req.Offset, io.SeekStart); err != nil {
			f.Close()
			return nil, classify(err)
		}
		res.Offset = req.Offset
		res.Size -= req.Offset
	}
	res.Body = newFileBody(ctx, f, res.Size)
	return res, nil
}

// classify maps an os error to its fetch Kind.
func classify(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fetch.Wrap(fetch.NotFound, err)
	case errors.Is(err, fs.ErrPermission):
		return fetch.Wrap(fetch.Auth, err)
	}
	return fetch.Wrap(fetch.Other, err)
}

// canceler records a context's cause once it is done.
type canceler struct {
	cause atomic.Pointer[error]
	stop  func() bool
}

func (c *canceler) watch(ctx context.Context) {
	c.stop = context.AfterFunc(ctx, func() {
		err := context.Cause(ctx)
		c.cause.Store(&err)
	})
}

func (c *canceler) err() error {
	if p := c.cause.Load(); p != nil {
		return fetch.Classify(*p)
	}
	return nil
}
