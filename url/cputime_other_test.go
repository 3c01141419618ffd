//go:build !linux

package url

import "time"

var start = time.Now()

// threadCPU falls back to wall time where thread CPU time is not at hand.
func threadCPU() time.Duration { return time.Since(start) }
