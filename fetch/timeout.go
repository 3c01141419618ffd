package fetch

import "time"

// The timeouts used where a Client or Request leaves its own at zero.
const (
	// DefaultConnectTimeout bounds each dial: resolving the name and
	// connecting.
	DefaultConnectTimeout = 30 * time.Second
	// DefaultIdleTimeout bounds each wait for the peer to send or accept
	// data, and each whole reply (a status line, a header block, a menu
	// line).
	DefaultIdleTimeout = 60 * time.Second
)

// past is a deadline already gone by: setting it makes pending and later
// I/O on a connection fail at once.
var past = time.Unix(1, 0)
