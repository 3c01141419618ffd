package main

import "github.com/rfc1738/fetch/fetch"

// exitCodes maps each kind of failure to the command's exit code. The
// library's Kinds are classes, not exit codes; this table is the
// command's own, and its numbers are part of the command's contract.
//
// NotModified maps to 0: the library reports it only when asked for a
// conditional fetch, and then "unchanged, nothing moved" is the answer
// asked for, not a failure (as curl -z exits 0). Unavailable (a server's
// "try later") and Canceled map to 1, the catch-all.
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
	fetch.TooLarge:    12,
}

// exitCode returns the exit code for err: 0 for nil, 1 for a kind the
// table does not know.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if code, ok := exitCodes[fetch.KindOf(err)]; ok {
		return code
	}
	return 1
}
