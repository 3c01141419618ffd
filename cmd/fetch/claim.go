package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// claim records that URL i of the run writes to the file dir/name, and
// refuses a second URL of the run that would write to the same file (two
// -O URLs with one last segment): the later one would silently overwrite
// the earlier. The same URL's retries claim its file again, as theirs.
func (e *runEnv) claim(i int, u *url.URL, dir, name string) error {
	if name == "" || e.cfg.output != "" && !e.src.keepValues && e.src.outputFor(i) == "" {
		return nil // stdout, or the one file of -o
	}
	if dir != "" {
		name = dir + string(os.PathSeparator) + name
	}
	key := filepath.Clean(name)
	e.claimMu.Lock()
	defer e.claimMu.Unlock()
	if e.claims == nil {
		e.claims = map[string]int{}
	}
	if j, ok := e.claims[key]; ok && j != i {
		return &fetch.Error{Op: "fetch", URL: u.Redacted(), Kind: fetch.Usage,
			Err: usageErr(fmt.Sprintf("URL %d of the run already writes %s", j+1, name))}
	}
	e.claims[key] = i
	return nil
}
