package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rfc1738/fetch/fetch/cookies"
)

// cookieConfig is what the cookie options set.
type cookieConfig struct {
	engine bool     // a jar is kept: -b (any) or -c given
	files  []string // -b FILE, in order
	jar    string   // -c FILE
	junk   bool     // -j
}

// cookieOptions are the cookie options, after curl's.
var cookieOptions = []option{
	{long: "cookie", short: 'b', arg: "'N=V; N2=V2' | FILE", schemes: []string{"http"},
		help: "http(s): send these cookies (text holding '='), or load a Netscape cookie file (a missing one is empty); either way keep the cookies replies set, redirects' included, for the hops and URLs that follow",
		set: func(c *config, v string) error {
			c.cookies.engine = true
			if strings.Contains(v, "=") {
				return c.addHeader("Cookie: " + v)
			}
			if v != "" {
				c.cookies.files = append(c.cookies.files, v)
			}
			return nil
		}},
	{long: "cookie-jar", short: 'c', arg: "FILE", schemes: []string{"http"},
		help: "http(s): keep cookies, and write them all to FILE (Netscape format; - for stdout) when done",
		set:  func(c *config, v string) error { c.cookies.engine, c.cookies.jar = true, v; return nil }},
	{long: "junk-session-cookies", short: 'j', schemes: []string{"http"},
		help: "http(s): with -b FILE, leave out the file's session cookies (those without an expiry)",
		set:  func(c *config, _ string) error { c.cookies.junk = true; return nil }},
}

// newJar returns the jar the options ask for, loaded from the -b files, or
// nil when no cookie option was given.
func (cc *cookieConfig) newJar() (*cookies.Jar, error) {
	if !cc.engine {
		return nil, nil
	}
	jar := &cookies.Jar{}
	for _, name := range cc.files {
		f, err := os.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // as curl: a cookie file not there yet is empty
		}
		if err != nil {
			return nil, fmt.Errorf("-b: %w", err)
		}
		err = jar.Load(f, cc.junk)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("-b %s: %w", name, err)
		}
	}
	return jar, nil
}

// save writes the jar to the -c file, atomically: to a temporary file in
// its folder, renamed into place once complete.
func (cc *cookieConfig) save(jar *cookies.Jar, stdout io.Writer) error {
	if cc.jar == "" || jar == nil {
		return nil
	}
	if cc.jar == "-" {
		return jar.Save(stdout)
	}
	tmp, err := os.CreateTemp(filepath.Dir(cc.jar), ".fetch-cookies-*")
	if err != nil {
		return fmt.Errorf("-c: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	if err := jar.Save(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("-c %s: %w", cc.jar, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("-c %s: %w", cc.jar, err)
	}
	if err := os.Rename(tmp.Name(), cc.jar); err != nil {
		return fmt.Errorf("-c: %w", err)
	}
	return nil
}
