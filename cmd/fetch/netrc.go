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

// netrcUser returns the credentials the netrc file gives for host: its
// "machine" entry, else its "default" entry, else nil. The file is file
// (--netrc-file), which must exist; without one, $NETRC or ~/.netrc,
// which may be missing.
func netrcUser(file, host string) (*url.Userinfo, error) {
	path, must := file, file != ""
	if path == "" {
		path = os.Getenv("NETRC")
	}
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, nil
		}
		path = filepath.Join(home, ".netrc")
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) && !must {
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
// runs to the next blank line and is skipped. A token in double quotes
// may hold spaces, and \", \\, \n, \r and \t, as curl reads it.
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
		fields, err := netrcFields(line)
		if err != nil {
			return nil, err
		}
		for _, f := range fields {
			if f.text == "macdef" && !f.quoted {
				inMacro = true
				break
			}
			toks = append(toks, f.text)
		}
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

// netrcField is one token of a netrc line.
type netrcField struct {
	text   string
	quoted bool
}

// netrcFields splits a line into tokens: runs of non-space bytes, or
// double-quoted strings with backslash escapes.
func netrcFields(line string) ([]netrcField, error) {
	var out []netrcField
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '"':
			var b strings.Builder
			i++
			for {
				if i >= len(line) {
					return nil, errors.New("netrc: a quoted token is not closed on its line")
				}
				c := line[i]
				i++
				if c == '"' {
					break
				}
				if c == '\\' && i < len(line) {
					c = line[i]
					i++
					switch c {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					}
				}
				b.WriteByte(c)
			}
			out = append(out, netrcField{b.String(), true})
		default:
			j := i
			for j < len(line) && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' {
				j++
			}
			out = append(out, netrcField{line[i:j], false})
			i = j
		}
	}
	return out, nil
}
