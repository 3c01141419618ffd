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

// parseNetrc reads netrc tokens: machine NAME | default, then login,
// password (and account, macdef, which are skipped).
func parseNetrc(r io.Reader, host string) (*url.Userinfo, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	sc.Split(bufio.ScanWords)
	var found, def *url.Userinfo
	var cur *url.Userinfo
	inMacro := false
	for sc.Scan() {
		tok := sc.Text()
		if inMacro {
			continue // macdef bodies run to the end; rare and ignored
		}
		switch tok {
		case "machine":
			if !sc.Scan() {
				break
			}
			cur = nil
			if strings.EqualFold(sc.Text(), host) && found == nil {
				found = &url.Userinfo{}
				cur = found
			}
		case "default":
			cur = nil
			if def == nil {
				def = &url.Userinfo{}
				cur = def
			}
		case "login", "password", "account":
			if !sc.Scan() {
				break
			}
			if cur == nil {
				continue
			}
			switch tok {
			case "login":
				cur.Username = sc.Text()
			case "password":
				cur.Password, cur.HasPassword = sc.Text(), true
			}
		case "macdef":
			inMacro = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if found != nil {
		return found, nil
	}
	return def, nil
}
