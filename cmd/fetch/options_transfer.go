package main

import (
	"fmt"
	"strconv"
	"strings"
)

// transferOptions are the options that shape each transfer and what is
// said about it: -w and its kin.
var transferOptions = []option{
	{long: "write-out", short: 'w', arg: "FORMAT", help: "after each URL, print FORMAT with its %{variables} filled in (@FILE reads it; see Write-out variables below)",
		set: func(c *config, v string) error { c.writeOut, c.hasWriteOut = v, true; return nil }},
	{long: "fail-with-body", schemes: []string{"http"}, help: "http(s): on an error status, still write the server's error page to stdout or the file; the exit code is the error's",
		set: func(c *config, _ string) error { c.failWithBody = true; return nil }},
	{long: "max-filesize", arg: "BYTES", help: "refuse a resource larger than BYTES (k, M, G suffixes: 1024s): exit 12, and no file left",
		set: func(c *config, v string) (err error) { c.maxFilesize, err = byteCount(v); return }},
	{long: "limit-rate", arg: "RATE", help: "read each transfer at most RATE bytes a second (k, M, G suffixes: 1024s)",
		set: func(c *config, v string) (err error) { c.limitRate, err = byteCount(v); return }},
}

// byteCount parses a count of bytes as curl does: a number, whole or
// not, with an optional suffix k, M or G (either case) for 1024, 1024²
// and 1024³. It must come to at least one byte.
func byteCount(v string) (int64, error) {
	num, mult := v, 1.0
	if n := len(v); n > 0 {
		switch strings.ToLower(v[n-1:]) {
		case "k":
			num, mult = v[:n-1], 1<<10
		case "m":
			num, mult = v[:n-1], 1<<20
		case "g":
			num, mult = v[:n-1], 1<<30
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*mult < 1 || f*mult > 1<<62 {
		return 0, fmt.Errorf("want a number of bytes, with k, M or G after it if you like, got %q", v)
	}
	return int64(f * mult), nil
}
