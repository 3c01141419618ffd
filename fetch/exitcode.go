package fetch

// exitCodes maps each Kind to the exit status the fetch command gives it
// (docs/CONTRACT.md §5). NotModified is 0: it is reported only for a
// conditional fetch, and then "unchanged, nothing moved" is the answer
// asked for (as curl -z exits 0). Unavailable (a server's "try later") and
// Canceled are 1, the catch-all.
var exitCodes = map[Kind]int{
	Other:       1,
	Usage:       2,
	Malformed:   3,
	Unsupported: 4,
	Connect:     5,
	Auth:        6,
	NotFound:    7,
	Protocol:    8,
	Incomplete:  9,
	Timeout:     10,
	Refused:     11,
	NotModified: 0,
	Unavailable: 1,
	Canceled:    1,
	TooLarge:    12,
}

// ExitCode returns the exit status the fetch command gives a failure of
// err's Kind (docs/CONTRACT.md §5): 0 for nil, 1 for a Kind it does not
// know. Programs that report failures as the command does (the work
// queue's worker records it for each job) use it, so that a status means
// the same everywhere.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	if code, ok := exitCodes[KindOf(err)]; ok {
		return code
	}
	return 1
}
