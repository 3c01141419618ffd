package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rfc1738/fetch/url"
)

// netrcUser returns the credentials ~/.netrc (or $NETRC) gives for host:
// its "machine" entry, else its "default" entry, else nil.
func netrcUser(host string) (*url.Userinfo, error) {
	path := os.Getenv("NETRC")
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, nil
		}
		path = filepath.Join(home, ".netrc")
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseNetrc(f, host)
}

// parseNetrc reads netrc tokens: "machine NAME" or "default", then
// "login", "password" and "account" with their values; a "macdef" body
// runs to the next blank line and is skipped.
func parseNetrc(r io.Reader, host string) (*url.Userinfo, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	var toks []string
	inMacro := false
	for sc.Scan() {
		line := sc.Text()
		if inMacro {
			inMacro = strings.TrimSpace(line) != ""
			continue
		}
		fields := strings.Fields(line)
		for i, f := range fields {
			if f == "macdef" {
				fields = fields[:i]
				inMacro = true
				break
			}
		}
		toks = append(toks, fields...)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var found, def, cur *url.Userinfo
	for i := 0; i < len(toks); i++ {
		next := func() string {
			if i+1 < len(toks) {
				i++
				return toks[i]
			}
			return ""
		}
		switch toks[i] {
		case "machine":
			cur = nil
			if name := next(); strings.EqualFold(name, host) && found == nil {
				found = &url.Userinfo{}
				cur = found
			}
		case "default":
			cur = nil
			if def == nil {
				def = &url.Userinfo{}
				cur = def
			}
		case "login":
			if v := next(); cur != nil {
				cur.Username = v
			}
		case "password":
			if v := next(); cur != nil {
				cur.Password, cur.HasPassword = v, true
			}
		case "account":
			next()
		}
	}
	if found != nil {
		return found, nil
	}
	return def, nil
}
