package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// one fetches the i'th URL to its destination and returns its exit code.
// Failures are reported on stderr, one line naming the URL.
func (e *runEnv) one(ctx context.Context, i int, stdout io.Writer) int {
	raw := e.cfg.urls[i]
	u, err := e.client.Parser.Parse(raw)
	if err != nil {
		return e.fail(&fetch.Error{Kind: fetch.Malformed, Err: err})
	}
	req := &fetch.Request{URL: u, Head: e.cfg.head, Prompt: e.prompter()}
	if e.trace != nil {
		req.Trace = e.trace.WithPrefix(fmt.Sprintf("[%d] ", i+1))
	}
	if u.User == nil && !e.cfg.hasUser && e.cfg.netrc {
		if ui, err := netrcUser(e.serverHost(u)); err != nil {
			return e.fail(&fetch.Error{Op: "netrc", Kind: fetch.Usage, Err: err})
		} else if ui != nil {
			req.User = ui
		}
	}
	if e.cfg.dryRun {
		if e.msg != nil {
			req.Message = bytes.NewReader(e.msg)
		}
		return e.plan(req, stdout)
	}

	var dest *fileOut
	if name, err := e.outputName(u); err != nil {
		return e.fail(&fetch.Error{Op: "fetch", URL: u.Redacted(), Kind: fetch.Usage, Err: err})
	} else if name != "" {
		if u.Scheme == "telnet" && !e.cfg.head {
			return e.fail(&fetch.Error{Op: "fetch", URL: u.Redacted(), Kind: fetch.Usage,
				Err: errors.New("a telnet session runs on the terminal and cannot be saved to a file (drop -o/-O)")})
		}
		// With -I, the metadata goes to the file, as curl writes headers.
		dest = &fileOut{final: name, resume: e.cfg.resume && !e.cfg.head}
	}

	retry := fetch.RetryPolicy{Attempts: e.cfg.retry}
	for attempt := 1; ; attempt++ {
		wrote, err := e.attempt(ctx, req, stdout, dest)
		if err == nil {
			return 0
		}
		wait, again := retry.Wait(req, attempt, err)
		if !again || (dest == nil && wrote) || ctx.Err() != nil {
			return e.fail(err)
		}
		if !e.cfg.silent {
			e.errMu.Lock()
			fmt.Fprintf(e.stderr, "fetch: %v; retrying in %v (%d of %d)\n", err, wait.Round(time.Millisecond), attempt, e.cfg.retry)
			e.errMu.Unlock()
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return e.fail(&fetch.Error{Op: "fetch", URL: req.URL.Redacted(), Kind: fetch.KindOf(ctx.Err()), Err: ctx.Err()})
		}
	}
}

// attempt makes one try at a transfer. wrote reports whether any byte
// reached stdout (after which a retry would duplicate output).
func (e *runEnv) attempt(ctx context.Context, req *fetch.Request, stdout io.Writer, dest *fileOut) (wrote bool, err error) {
	if e.cfg.maxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.cfg.maxTime)
		defer cancel()
	}
	if e.msg != nil {
		req.Message = bytes.NewReader(e.msg)
	}
	req.Offset = 0
	if dest != nil {
		off, err := dest.open()
		if err != nil {
			return false, &fetch.Error{Op: "write", URL: req.URL.Redacted(), Kind: fetch.Other, Err: err}
		}
		req.Offset = off
	}
	if e.cfg.menu && !e.cfg.head && dest == nil && ftpDirectory(req.URL) {
		cw := &countWriter{w: stdout}
		err := renderFTPMenu(ctx, e.client, cw, req)
		return cw.n > 0, err
	}
	res, err := e.cfg.warc.do(ctx, e.client, req)
	if err != nil {
		if dest != nil {
			dest.abort()
		}
		return false, err
	}
	defer res.Body.Close()

	switch {
	case e.cfg.head && dest != nil:
		return false, e.headToFile(req, res, dest)
	case e.cfg.head:
		return true, e.printHead(stdout, res)
	case res.Kind == fetch.KindSession:
		if dest != nil {
			dest.abort()
		}
		return true, e.session(ctx, res)
	}

	var w io.Writer = stdout
	if dest != nil {
		if err := dest.startAt(res.Offset); err != nil {
			dest.abort()
			return false, &fetch.Error{Op: "write", URL: req.URL.Redacted(), Kind: fetch.Other, Err: err}
		}
		w = dest
	}
	cw := &countWriter{w: w}
	var out io.Writer = cw
	if p := e.progress(res); p != nil {
		out = p.wrap(cw)
		defer p.done()
	}
	if e.cfg.menu && (res.Kind == fetch.KindMenu || res.Kind == fetch.KindList || res.Kind == fetch.KindDirectory) {
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
	if err == nil && dest != nil {
		err = dest.commit()
	}
	if err != nil {
		if dest != nil {
			dest.abort()
		}
		if cw.werr != nil && errors.Is(err, cw.werr) {
			return cw.n > 0, &fetch.Error{Op: "write", URL: req.URL.Redacted(), Kind: fetch.Other, Err: cw.werr}
		}
		if _, ok := err.(*fetch.Error); !ok {
			err = &fetch.Error{Op: "fetch", URL: req.URL.Redacted(), Kind: fetch.KindOf(err), Err: err}
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

// plan prints the protocol lines the request means (--dry-run).
func (e *runEnv) plan(req *fetch.Request, stdout io.Writer) int {
	lines, err := e.client.Plan(req)
	if err != nil {
		return e.fail(err)
	}
	var b bytes.Buffer
	if len(e.cfg.urls) > 1 {
		fmt.Fprintf(&b, "# %s\n", req.URL.Redacted())
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	stdout.Write(b.Bytes())
	return 0
}

// outputName returns the file a URL's bytes go to: -o, or with -O the URL's
// last path segment in --output-dir; "" for stdout.
func (e *runEnv) outputName(u *url.URL) (string, error) {
	if e.cfg.output != "" {
		return e.cfg.output, nil
	}
	if !e.cfg.remoteName {
		return "", nil
	}
	name, err := remoteName(u)
	if err != nil {
		return "", err
	}
	if e.cfg.outputDir != "" {
		return e.cfg.outputDir + string(os.PathSeparator) + name, nil
	}
	return name, nil
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
