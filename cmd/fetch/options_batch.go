package main

import (
	"fmt"
	"strconv"
)

// batchConfig is what the options of many transfers set: rates, listings
// and recursion.
type batchConfig struct {
	rate      float64 // --rate: requests a second to one host; 0 is no cap
	list      bool    // --list
	recursive bool    // -r
	level     int     // -l: link depth for -r
	hasLevel  bool
	m         mirrorConfig // options_mirror.go
}

// batchOwnOptions are the options of many transfers: --rate, --list, -r,
// -l (the mirror's are mirrorOptions).
var batchOwnOptions = []option{
	{long: "rate", arg: "R", help: "at most R requests a second to one host (a fraction allowed: 0.5 is one each 2 s)",
		set: func(c *config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 {
				return fmt.Errorf("want a positive number of requests a second, got %q", v)
			}
			c.batch.rate = f
			return nil
		}},
	{long: "list", json: true, help: "list a directory, menu or page: one URL a line (with --json, one object per entry)",
		set: func(c *config, _ string) error { c.batch.list = true; return nil }},
	{long: "recursive", short: 'r', help: "mirror: follow listings and links from each URL (below its folder, on its host), files laid out as host/path (in --output-dir)",
		set: func(c *config, _ string) error { c.batch.recursive = true; return nil }},
	{long: "level", short: 'l', arg: "N", help: "with -r, follow links at most N deep (default 5)",
		set: func(c *config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("want a whole number, got %q", v)
			}
			c.batch.level, c.batch.hasLevel = n, true
			return nil
		}},
}
