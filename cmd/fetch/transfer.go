package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// request builds the request for an attempt at r.URL: the CLI's wishes
// (-I, --data, -u, --netrc, -v) and, with -C -, the offset to resume at.
// requestAt parses the i'th URL of the run and makes its request; a
// failure is reported (failAt) and ok is false.
func (e *runEnv) requestAt(i int, raw string) (req *fetch.Request, ok bool) {
	r := &fetch.Result{Index: i, Input: raw}
	u, err := e.client.Parser.Parse(raw)
	if err != nil {
		e.failAt(i, &fetch.Error{Kind: fetch.Malformed, Err: err})
		return nil, false
	}
	r.URL = u
	req, err = e.request(r)
	if err != nil {
		e.failAt(i, err)
		return nil, false
	}
	return req, true
}

func (e *runEnv) request(r *fetch.Result) (*fetch.Request, error) {
	u := r.URL
	if err := e.checkScope(u); err != nil {
		return nil, err
	}
	req := &fetch.Request{URL: u, Head: e.cfg.head, Prompt: e.prompter()}
	if e.cfg.header != nil {
		req.Header = e.cfg.header.Clone()
	}
	if !e.cfg.timeCond.IsZero() && !e.cfg.timeCondBefore {
		req.IfModifiedSince = e.cfg.timeCond
	}
	// -R and -z -DATE need the time where a protocol tells it only when
	// asked (FTP's MDTM).
	req.WantModTime = e.cfg.remoteTime || e.cfg.timeCondBefore
	if e.etag != "" {
		if req.Header == nil {
			req.Header = make(http.Header)
		}
		req.Header.Set("If-None-Match", e.etag)
	}
	e.wo.track(r.Index, req)
	e.errPages.track(r.Index, req)
	if e.trace != nil {
		req.Trace = e.trace.WithPrefix(fmt.Sprintf("[%d] ", r.Index+1))
	}
	if u.User == nil && !e.cfg.hasUser && e.cfg.netrc {
		if ui, err := netrcUser(e.cfg.auth.netrcFile, e.serverHost(u)); err != nil {
			return nil, &fetch.Error{Op: "netrc", Kind: fetch.Usage, Err: err}
		} else if ui != nil {
			req.User = ui
		}
	}
	if e.msg != nil {
		req.Message = bytes.NewReader(e.msg)
	}
	if !e.resumes() {
		if !req.Head {
			req.Offset = e.resume.offset(r.Index) // a retry after a cut: the rest
		}
		// The destination is made when the body comes (result); a URL
		// that cannot have one fails now, before it is fetched.
		dir, name, err := e.destName(r.Index, u)
		if err != nil {
			return nil, err
		}
		if err := e.claim(r.Index, u, dir, name); err != nil {
			return nil, err
		}
		return req, nil
	}
	dest, err := e.dest(r.Index, u)
	if err != nil {
		return nil, err
	}
	if dest == nil {
		return req, nil // stdout: nothing to resume from
	}
	if err := e.claim(r.Index, u, "", dest.final); err != nil {
		return nil, err
	}
	off, err := dest.open()
	dest.abort() // keeps FILE.part: it is reopened when the body comes
	if err != nil {
		return nil, &fetch.Error{Op: "write", URL: u.Redacted(), Kind: fetch.Other, Err: err}
	}
	req.Offset = off
	return req, nil
}

// resumes reports whether a transfer goes on from what a file holds
// (-C -, not with -I).
func (e *runEnv) resumes() bool { return e.cfg.resume && !e.cfg.head }

// dest returns the file the bytes of URL i, u, go to, or nil for stdout.
func (e *runEnv) dest(i int, u *url.URL) (*fileOut, error) {
	dir, name, err := e.destName(i, u)
	if err != nil || name == "" {
		return nil, err
	}
	if dir != "" {
		name = dir + string(os.PathSeparator) + name
	}
	// With -I, the metadata goes to the file, as curl writes headers.
	return &fileOut{final: name, resume: e.resumes(), many: e.cfg.output == "", mkdir: e.cfg.createDirs}, nil
}

// destName is outputName, or why a URL's bytes cannot go there, as a
// *fetch.Error.
func (e *runEnv) destName(i int, u *url.URL) (dir, name string, err error) {
	dir, name, err = e.outputName(i, u)
	if err != nil {
		return "", "", &fetch.Error{Op: "fetch", URL: u.Redacted(), Kind: fetch.Usage, Err: err}
	}
	if name != "" && u.Scheme == "telnet" && !e.cfg.head {
		return "", "", &fetch.Error{Op: "fetch", URL: u.Redacted(), Kind: fetch.Usage,
			Err: errors.New("a telnet session runs on the terminal and cannot be saved to a file (drop -o/-O)")}
	}
	return dir, name, nil
}

// onRetry tells of a retry on stderr.
func (e *runEnv) onRetry(r *fetch.Result, err error, wait time.Duration) {
	if e.cfg.silent {
		return
	}
	e.errMu.Lock()
	defer e.errMu.Unlock()
	fmt.Fprintf(e.stderr, "fetch: %v; retrying in %v (%d of %d)\n", err, wait.Round(time.Millisecond), r.Attempt+1, e.cfg.retry)
}

// result takes one outcome of the batch: a final failure is reported; a
// resource is written to its destination. An attempt that fails after
// bytes reached stdout is not retried: they cannot be taken back.
func (e *runEnv) result(ctx context.Context, r *fetch.Result, stdout io.Writer, prog *multiProgress) error {
	if r.Err != nil {
		e.resume.done(r.Index)
		if errors.Is(r.Err, fetch.NotModified) {
			return nil // -z, --etag-compare: not modified, nothing to move (exit 0)
		}
		e.failAt(r.Index, r.Err)
		return nil
	}
	if e.cfg.newerThanCond(r.Resource) {
		return nil // -z -DATE: modified since, not fetched (exit 0)
	}
	dest, err := e.dest(r.Index, r.URL)
	if err != nil {
		e.resume.done(r.Index)
		return err
	}
	if kept := e.resume.take(r.Index); kept != nil {
		dest = kept // a cut attempt's file, to go on with
	} else if dest != nil && e.cfg.remoteHeaderName && !e.cfg.head {
		if dest, err = e.headerNamed(r.Index, r.Resource, dest); err != nil {
			return fetch.NoRetry(err)
		}
	}
	if dest != nil {
		dest.onFail = e.resume.keeper(r.Index)
	} else if err := e.resume.checkStdout(r.Index, r.Resource); err != nil {
		return err
	}
	sw := &countWriter{w: stdout}
	wrote, err := e.deliver(ctx, r.Resource, sw, dest, prog)
	if err != nil && wrote && dest == nil {
		if e.resume == nil || e.cfg.head || r.Resource.Kind == fetch.ResourceSession {
			return fetch.NoRetry(err)
		}
		e.resume.wrote(r.Index, r.Resource.Offset+sw.n) // a retry asks for the rest
	}
	if err == nil {
		e.resume.done(r.Index)
		if e.cfg.etagSave != "" {
			if serr := saveETag(e.cfg.etagSave, r.Resource); serr != nil {
				return fetch.NoRetry(&fetch.Error{Op: "write", URL: r.URL.Redacted(), Kind: fetch.Other, Err: fmt.Errorf("--etag-save: %w", serr)})
			}
		}
	}
	return err
}

// deliver writes a fetched resource to stdout or its file. wrote reports
// whether any byte reached stdout (after which a retry would duplicate
// output).
func (e *runEnv) deliver(ctx context.Context, res *fetch.Resource, stdout io.Writer, dest *fileOut, prog *multiProgress) (wrote bool, err error) {
	u := res.URL
	switch {
	case e.cfg.head && dest != nil:
		if _, err := dest.open(); err != nil {
			return false, &fetch.Error{Op: "write", URL: u.Redacted(), Kind: fetch.Other, Err: err}
		}
		return false, e.headToFile(&fetch.Request{URL: u}, res, dest)
	case e.cfg.head:
		cw := &countWriter{w: stdout}
		if err := e.printHead(cw, res); err != nil {
			return cw.n > 0, err
		}
		if cw.werr != nil {
			return cw.n > 0, &fetch.Error{Op: "write", URL: u.Redacted(), Kind: fetch.Other, Err: cw.werr}
		}
		return true, nil
	case res.Kind == fetch.ResourceSession:
		if dest != nil {
			dest.abort()
		}
		return true, e.session(ctx, res)
	}

	var w io.Writer = stdout
	if dest != nil {
		if dest.kept {
			dest.kept = false // open already, from a cut attempt
		} else if _, err := dest.open(); err != nil {
			return false, &fetch.Error{Op: "write", URL: u.Redacted(), Kind: fetch.Other, Err: err}
		}
		if err := dest.startAt(res.Offset); err != nil {
			dest.abort()
			return false, &fetch.Error{Op: "write", URL: u.Redacted(), Kind: fetch.Other, Err: err}
		}
		w = dest
	}
	cw := &countWriter{w: w}
	var out io.Writer = cw
	if pw, done := prog.wrap(res, cw); pw != nil {
		out = pw
		defer done()
	} else if p := e.progress(res); p != nil {
		out = p.wrap(cw)
		defer p.done()
	}
	if e.cfg.menu && (res.Kind == fetch.ResourceMenu || res.Kind == fetch.ResourceList || res.Kind == fetch.ResourceDirectory) {
		err = renderMenu(out, res)
	} else {
		_, err = io.Copy(out, res.Body)
	}
	if err == nil {
		err = res.Body.Close()
	}
	if err == nil && res.Size >= 0 && cw.n < res.Size && !e.cfg.menu {
		err = fetch.Errorf(fetch.Incomplete, "got %d of %d bytes", cw.n, res.Size)
	}
	if err == nil && cw.werr != nil {
		err = cw.werr // a writer that swallowed its own failure
	}
	if err == nil && dest != nil {
		err = dest.commit()
		if err == nil && e.cfg.remoteTime {
			if terr := setRemoteTime(dest.final, res.ModTime); terr != nil {
				return false, &fetch.Error{Op: "write", URL: u.Redacted(), Kind: fetch.Other, Err: fmt.Errorf("-R: %w", terr)}
			}
		}
	}
	if err != nil {
		if dest != nil && (cw.werr != nil || dest.onFail == nil || !dest.onFail(dest, res.Offset+cw.n)) {
			dest.abort()
		}
		if cw.werr != nil && errors.Is(err, cw.werr) {
			return cw.n > 0, &fetch.Error{Op: "write", URL: u.Redacted(), Kind: fetch.Other, Err: cw.werr}
		}
		if _, ok := err.(*fetch.Error); !ok {
			err = &fetch.Error{Op: "fetch", URL: u.Redacted(), Kind: fetch.KindOf(err), Err: err}
		}
		return cw.n > 0, err
	}
	return cw.n > 0, nil
}

// countWriter counts the bytes written and remembers a write failure, so a
// failure to write is told apart from a failure to read.
type countWriter struct {
	w    io.Writer
	n    int64
	werr error
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		c.werr = err
	}
	return n, err
}

// plans prints, for each URL in order, the protocol lines it means
// (--dry-run). Output that cannot be written is a failure.
func (e *runEnv) plans(urls iter.Seq[string]) int {
	i := 0
	for raw := range urls {
		idx := i
		i++
		req, ok := e.requestAt(idx, raw)
		if !ok {
			continue
		}
		lines, err := e.client.Plan(req)
		if err != nil {
			e.failAt(idx, err)
			continue
		}
		var b bytes.Buffer
		if e.many {
			fmt.Fprintf(&b, "# %s\n", req.URL.Redacted())
		}
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if _, err := e.stdout.Write(b.Bytes()); err != nil {
			e.writeFailed(idx, req.URL.Redacted(), err)
		}
	}
	e.failMu.Lock()
	defer e.failMu.Unlock()
	return e.failCode
}

// outputName returns the file the bytes of URL i, u, go to: -o (its #N
// filled in from the URL's globs), or with -O the URL's last path segment,
// name, in --output-dir, dir; "" for stdout. The two are left apart, for a
// caller that only looks, to join.
func (e *runEnv) outputName(i int, u *url.URL) (dir, name string, err error) {
	if o := e.src.outputFor(i); o != "" {
		return "", o, nil // a -K file's output line
	}
	if e.cfg.output != "" {
		return "", globName(e.cfg.output, e.src.globValues(i)), nil
	}
	if !e.cfg.remoteName {
		return "", "", nil
	}
	name, err = remoteName(u)
	if err != nil {
		return "", "", err
	}
	return e.cfg.outputDir, name, nil
}

// allToFiles reports whether no URL's bytes go to stdout: with -O (and no
// -o) each URL is written to its own file, or fails.
func (c *config) allToFiles() bool {
	return c.remoteName && c.output == ""
}

// serverHost is the host a URL's credentials belong to: its own, or for
// URLs without one (news:) the server its handler will use.
func (e *runEnv) serverHost(u *url.URL) string {
	if u.Host != "" {
		return u.Host
	}
	if h, ok := e.client.Handler(u.Scheme); ok {
		if sh, ok := h.(interface{ ServerHost(*url.URL) string }); ok {
			return sh.ServerHost(u)
		}
	}
	return ""
}
