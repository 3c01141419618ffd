package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// printHead prints a resource's metadata (-I): "key: value" lines, or with
// --json one object. Passwords never appear: the URL is redacted.
func (e *runEnv) printHead(w io.Writer, res *fetch.Resource) error {
	keys := make([]string, 0, len(res.Extra))
	for k := range res.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if e.cfg.json {
		obj := map[string]any{
			"url":        res.URL.Redacted(),
			"kind":       res.Kind.String(),
			"size":       nil,
			"modified":   nil,
			"media_type": nil,
		}
		if res.Size >= 0 {
			obj["size"] = res.Size
		}
		if !res.ModTime.IsZero() {
			obj["modified"] = res.ModTime.UTC().Format(time.RFC3339)
		}
		if res.MediaType != "" {
			obj["media_type"] = res.MediaType
		}
		if len(res.Extra) > 0 {
			obj["extra"] = res.Extra
		}
		b, err := marshalJSON(obj)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "url: %s\n", res.URL.Redacted())
	fmt.Fprintf(&b, "kind: %s\n", res.Kind)
	if res.Size >= 0 {
		fmt.Fprintf(&b, "size: %d\n", res.Size)
	}
	if !res.ModTime.IsZero() {
		fmt.Fprintf(&b, "modified: %s\n", res.ModTime.UTC().Format(time.RFC3339))
	}
	if res.MediaType != "" {
		fmt.Fprintf(&b, "media-type: %s\n", fetch.Sanitize(res.MediaType))
	}
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, fetch.Sanitize(strings.ReplaceAll(res.Extra[k], "\n", " ")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// headToFile writes the metadata of -I to the -o or -O file, atomically
// like a body: complete, or no file.
func (e *runEnv) headToFile(req *fetch.Request, res *fetch.Resource, dest *fileOut) error {
	err := dest.startAt(0)
	if err == nil {
		err = e.printHead(dest, res)
	}
	if err == nil {
		err = dest.commit()
	}
	if err != nil {
		dest.abort()
		return &fetch.Error{Op: "write", URL: req.URL.Redacted(), Kind: fetch.Other, Err: err}
	}
	return nil
}
