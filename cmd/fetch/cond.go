package main

import (
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// readETag reads the ETag --etag-compare compares with: FILE's first line;
// "" when FILE is missing or empty, and then no condition is sent.
func readETag(name string) (string, error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line), nil
}

// saveETag writes res's ETag, and a line end, to --etag-save's FILE; an
// empty file when the reply had none.
func saveETag(name string, res *fetch.Resource) error {
	tag := strings.TrimSpace(res.Header.Get("Etag"))
	if strings.ContainsAny(tag, "\r\n\x00") {
		tag = ""
	}
	if tag != "" {
		tag += "\n"
	}
	return os.WriteFile(name, []byte(tag), 0o666)
}

// newerThanCond reports whether res fails -z -DATE: it was modified at
// or after DATE. A resource whose time is unknown passes.
func (c *config) newerThanCond(res *fetch.Resource) bool {
	return c.timeCondBefore && !res.ModTime.IsZero() && !res.ModTime.Before(c.timeCond)
}

// setRemoteTime gives the file name the resource's modification time
// (-R); a device, or a resource without a time, is left as it is.
func setRemoteTime(name string, mt time.Time) error {
	if mt.IsZero() {
		return nil
	}
	if fi, err := os.Lstat(name); err != nil || !fi.Mode().IsRegular() {
		return err
	}
	return os.Chtimes(name, mt, mt)
}

// dispositionName is the file name a reply's Content-Disposition gives
// (-J), "" when it gives none. A name the file system would take as more
// than a name (a path separator, ".", "..", a control character) is an
// error: such a name is never used.
func dispositionName(res *fetch.Resource) (string, error) {
	cd := res.Header.Get("Content-Disposition")
	if cd == "" {
		return "", nil
	}
	_, params, err := mime.ParseMediaType(cd)
	if err != nil {
		return "", nil // unreadable: as if none
	}
	name := params["filename"]
	switch {
	case name == "":
		return "", nil
	case name == "." || name == ".." || strings.HasPrefix(name, "."):
		return "", fmt.Errorf("the server's file name %q is a dot name", fetch.Sanitize(name))
	case strings.ContainsAny(name, "/\\:"):
		return "", fmt.Errorf("the server's file name %q holds a path separator", fetch.Sanitize(name))
	case strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return "", fmt.Errorf("the server's file name %q holds a control character", fetch.Sanitize(name))
	}
	return name, nil
}

// headerNamed returns the file -J writes URL i's resource to, in place of
// -O's dest: the Content-Disposition name in the same folder. A refused
// name keeps -O's, with a word on stderr; an existing file is not
// overwritten.
func (e *runEnv) headerNamed(i int, res *fetch.Resource, dest *fileOut) (*fileOut, error) {
	name, err := dispositionName(res)
	if err != nil {
		if !e.cfg.silent {
			e.errMu.Lock()
			fmt.Fprintf(e.stderr, "fetch: %s: -J: %v; writing to %s\n", res.URL.Redacted(), err, dest.final)
			e.errMu.Unlock()
		}
		return dest, nil
	}
	if name == "" {
		return dest, nil
	}
	final := filepath.Join(filepath.Dir(dest.final), name)
	if _, err := os.Lstat(final); err == nil {
		return nil, &fetch.Error{Op: "fetch", URL: res.URL.Redacted(), Kind: fetch.Refused,
			Err: fmt.Errorf("-J: %s, the server's name, exists already: not overwritten", final)}
	}
	if err := e.claim(i, res.URL, "", final); err != nil {
		return nil, err
	}
	d := *dest
	d.final = final
	e.named.Store(i, final) // for -w's filename_effective
	return &d, nil
}
