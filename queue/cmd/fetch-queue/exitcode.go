package main

import "github.com/rfc1738/fetch/fetch"

// exitCodes maps each kind of failure to the status a worker records for a
// job: fetch's exit codes (docs/CONTRACT.md §5), so that a record's status
// means what fetch's exit code for the same URL would.
var exitCodes = map[fetch.Kind]int{
	fetch.Other:       1,
	fetch.Usage:       2,
	fetch.Malformed:   3,
	fetch.Unsupported: 4,
	fetch.Connect:     5,
	fetch.Auth:        6,
	fetch.NotFound:    7,
	fetch.Protocol:    8,
	fetch.Incomplete:  9,
	fetch.Timeout:     10,
	fetch.Refused:     11,
	fetch.NotModified: 0,
	fetch.Unavailable: 1,
	fetch.Canceled:    1,
}

// exitCode returns the status for err: 0 for nil, 1 for a kind the table
// does not know.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if code, ok := exitCodes[fetch.KindOf(err)]; ok {
		return code
	}
	return 1
}
