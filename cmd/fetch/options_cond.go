package main

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// condOptions are the options of conditions and of what a transfer keeps
// of the server's metadata: -z, -R, the ETag files, -J.
var condOptions = []option{
	{long: "time-cond", short: 'z', arg: "DATE|FILE", help: "fetch only what was modified after DATE (or FILE's modification time); -DATE: only what was not",
		set: func(c *config, v string) (err error) { c.timeCond, c.timeCondBefore, err = parseTimeCond(v); return }},
	{long: "remote-time", short: 'R', help: "give the file written the modification time the server reports (every scheme that reports one)",
		set: func(c *config, _ string) error { c.remoteTime = true; return nil }},
	{long: "etag-save", arg: "FILE", schemes: []string{"http"}, help: "http(s): save the reply's ETag in FILE",
		set: func(c *config, v string) error { c.etagSave = v; return nil }},
	{long: "etag-compare", arg: "FILE", schemes: []string{"http"}, help: "http(s): fetch only when the ETag differs from the one in FILE (If-None-Match)",
		set: func(c *config, v string) error { c.etagCompare = v; return nil }},
	{long: "remote-header-name", short: 'J', schemes: []string{"http"}, help: "http(s), with -O: name the file as the server's Content-Disposition says (a name with a path separator, or a dot name, is not taken; an existing file is not overwritten)",
		set: func(c *config, _ string) error { c.remoteHeaderName = true; return nil }},
}

// timeLayouts are the date forms -z reads: HTTP's three (RFC 9110
// §5.6.7), RFC 3339, and plain dates and times (UTC).
var timeLayouts = []string{
	http.TimeFormat, time.RFC850, time.ANSIC, time.RFC1123Z, time.RFC1123,
	time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02", "20060102",
	"2 Jan 2006", "2 Jan 2006 15:04:05", "Jan 2 2006", "Jan 2 2006 15:04:05",
}

// parseTimeCond reads -z's argument: a date, or a file whose modification
// time is the date; a leading '-' asks for the opposite condition.
func parseTimeCond(v string) (t time.Time, before bool, err error) {
	arg := v
	if strings.HasPrefix(arg, "-") {
		arg, before = arg[1:], true
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, arg); err == nil {
			return t, before, nil
		}
	}
	fi, err := os.Stat(arg)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("%q is neither a date (such as %q or 2026-01-02) nor a file", arg, http.TimeFormat)
	}
	return fi.ModTime(), before, nil
}
