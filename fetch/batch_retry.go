package fetch

import "time"

// RetryPolicy says which failures are tried again and how long to wait
// first. Its zero value tries once.
type RetryPolicy struct {
	// Attempts is how many times a failure may be retried.
	Attempts int
	// Base is the first wait; each later one doubles, up to Max. Zero
	// means one second.
	Base time.Duration
	// Max caps a wait. Zero means 30 seconds.
	Max time.Duration
}

// Delay reports whether the failure err of attempt (from 0) is retried,
// and after how long.
func (p RetryPolicy) Delay(attempt int, err error) (time.Duration, bool) {
	if attempt >= p.Attempts {
		return 0, false
	}
	switch KindOf(err) {
	case Connect, Timeout, Incomplete:
	default:
		return 0, false
	}
	base, max := p.Base, p.Max
	if base <= 0 {
		base = time.Second
	}
	if max <= 0 {
		max = 30 * time.Second
	}
	d := base
	for range attempt {
		if d >= max/2 {
			return max, true
		}
		d *= 2
	}
	return min(d, max), true
}
