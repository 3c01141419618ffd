package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// mirrorConfig is what wget's mirror options set (long names only: -A and
// -R are curl's --user-agent and --remote-time).
type mirrorConfig struct {
	state          string // --state DIR: the crawl's frontier on disk
	accept, reject []string
	acceptRE       *regexp.Regexp
	rejectRE       *regexp.Regexp
	spanHosts      bool
	domains        []string
	parent         bool // --parent: leave the seed's folder
	noHostDirs     bool
	cutDirs        int
	requisites     bool // --page-requisites
	noRobots       bool
	wait           float64 // seconds
	randomWait     bool
	mirror         bool // --mirror: infinite depth, timestamping
	sitemaps       bool // --follow-sitemaps
	given          []string
}

// list splits a comma-separated option value.
func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// mirrorOption is an option of -r only: given without -r it is a usage
// error, never silently ignored.
func mirrorOption(o option) option {
	set := o.set
	o.set = func(c *config, v string) error {
		c.batch.m.given = append(c.batch.m.given, "--"+o.long)
		return set(c, v)
	}
	return o
}

// mirrorOptions are wget's options of a mirror, for -r.
var mirrorOptions = []option{
	mirrorOption(option{long: "state", arg: "DIR", help: "with -r, keep the crawl's state in DIR: run again, a stopped crawl goes on where it stopped, a finished one is recrawled conditionally (If-Modified-Since, If-None-Match)",
		set: func(c *config, v string) error { c.batch.m.state = v; return nil }}),
	mirrorOption(option{long: "accept", arg: "LIST", help: "with -r, keep only files whose names end in one of LIST's suffixes or match one of its patterns (*, ?, [...]); pages are still read for their links",
		set: func(c *config, v string) error { c.batch.m.accept = append(c.batch.m.accept, list(v)...); return nil }}),
	mirrorOption(option{long: "reject", arg: "LIST", help: "with -r, keep no file whose name ends in one of LIST's suffixes or matches one of its patterns",
		set: func(c *config, v string) error { c.batch.m.reject = append(c.batch.m.reject, list(v)...); return nil }}),
	mirrorOption(option{long: "accept-regex", arg: "RE", help: "with -r, keep only the URLs RE matches (Go regexp syntax, on the whole URL)",
		set: func(c *config, v string) error {
			re, err := regexp.Compile(v)
			c.batch.m.acceptRE = re
			return err
		}}),
	mirrorOption(option{long: "reject-regex", arg: "RE", help: "with -r, keep no URL RE matches",
		set: func(c *config, v string) error {
			re, err := regexp.Compile(v)
			c.batch.m.rejectRE = re
			return err
		}}),
	mirrorOption(option{long: "span-hosts", help: "with -r, follow links to other hosts",
		set: func(c *config, _ string) error { c.batch.m.spanHosts = true; return nil }}),
	mirrorOption(option{long: "domains", arg: "LIST", help: "with -r, follow links only to hosts in these domains (with --span-hosts: to any of them)",
		set: func(c *config, v string) error { c.batch.m.domains = append(c.batch.m.domains, list(v)...); return nil }}),
	mirrorOption(option{long: "parent", help: "with -r, follow links above the seed's folder too (by default, as wget's --no-parent, not)",
		set: func(c *config, _ string) error { c.batch.m.parent = true; return nil }}),
	mirrorOption(option{long: "no-host-directories", help: "with -r, lay files out as path, not host/path",
		set: func(c *config, _ string) error { c.batch.m.noHostDirs = true; return nil }}),
	mirrorOption(option{long: "cut-dirs", arg: "N", help: "with -r, leave out the first N folders of each path",
		set: func(c *config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("want a whole number, got %q", v)
			}
			c.batch.m.cutDirs = n
			return nil
		}}),
	mirrorOption(option{long: "page-requisites", help: "with -r, also fetch what the deepest pages need to show (images, style sheets, scripts), one link beyond the depth",
		set: func(c *config, _ string) error { c.batch.m.requisites = true; return nil }}),
	mirrorOption(option{long: "no-robots", help: "with -r, do not obey robots.txt or nofollow",
		set: func(c *config, _ string) error { c.batch.m.noRobots = true; return nil }}),
	mirrorOption(option{long: "wait", arg: "S", help: "with -r, wait S seconds between requests to one host (a fraction allowed)",
		set: func(c *config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 {
				return fmt.Errorf("want a positive number of seconds, got %q", v)
			}
			c.batch.m.wait = f
			return nil
		}}),
	mirrorOption(option{long: "random-wait", help: "with -r and --wait S, wait between 0.5 S and 1.5 S, at random",
		set: func(c *config, _ string) error { c.batch.m.randomWait = true; return nil }}),
	mirrorOption(option{long: "mirror", help: "with -r, no depth limit and a conditional recrawl of the files already there (If-Modified-Since from each file's time)",
		set: func(c *config, _ string) error { c.batch.m.mirror = true; return nil }}),
	mirrorOption(option{long: "follow-sitemaps", help: "with -r, also follow the URLs of the sitemaps robots.txt names and of /sitemap.xml (sitemap indexes and gzipped ones too)",
		set: func(c *config, _ string) error { c.batch.m.sitemaps = true; return nil }}),
}
