package fetch

import (
	"errors"
	"math/rand/v2"
	"time"
)

// RetryPolicy says whether and when to try a failed request again. Its
// zero value retries nothing; set Attempts.
//
// Only transient failures are retried: Kind Connect, Timeout, Incomplete
// and Unavailable (a server's "try later": HTTP 429 and 503, FTP 421 and
// 450, NNTP 400; FTP 425 and 426 are Connect and Incomplete), and a reply
// marked transient (HTTP 500 and 502); with AllErrors, every failure that
// trying again could cure. A request
// that sends a message (Request.Message) is never retried: the message may
// have gone, and a retry could deliver it twice. The waits grow
// exponentially from Backoff, with jitter, up to MaxBackoff; a server's
// Retry-After is honoured.
type RetryPolicy struct {
	// Attempts is how many times to try again after the first try.
	Attempts int
	// Backoff is the wait before the first retry, doubled for each one
	// after it. Zero means one second.
	Backoff time.Duration
	// MaxBackoff caps every wait, Retry-After included: a server that
	// asks for a longer wait is not retried. Zero means 30 seconds.
	MaxBackoff time.Duration
	// Delay, when set, is every wait, as curl's --retry-delay: no
	// doubling, no jitter, no Retry-After.
	Delay time.Duration
	// MaxTime, when set, bounds the time from a request's first attempt
	// within which a retry may start, as curl's --retry-max-time: a retry
	// whose wait would end later is not made (see WaitAfter).
	MaxTime time.Duration
	// AllErrors retries every failure but those another try cannot
	// change (Kind Usage, Malformed, Unsupported, Refused, Canceled), as
	// curl's --retry-all-errors. A message is still never sent twice.
	AllErrors bool
}

// Transient reports whether err is a failure that trying again may cure:
// one of Kind Connect, Timeout, Incomplete or Unavailable, or a reply
// marked Transient.
func Transient(err error) bool {
	switch KindOf(err) {
	case Connect, Timeout, Incomplete, Unavailable:
		return true
	}
	var re *ReplyError
	return errors.As(err, &re) && re.Transient
}

// retryable reports whether p retries err.
func (p RetryPolicy) retryable(err error) bool {
	if Transient(err) {
		return true
	}
	if !p.AllErrors {
		return false
	}
	switch KindOf(err) {
	case Usage, Malformed, Unsupported, Refused, Canceled:
		return false
	}
	return true
}

// Wait reports whether the request that failed with err should be tried
// again as retry number attempt (1 for the first retry), and after how
// long: the server's Retry-After when it stated one, else Backoff·2^(attempt-1)
// less up to half of it at random, never more than MaxBackoff.
func (p RetryPolicy) Wait(req *Request, attempt int, err error) (time.Duration, bool) {
	return p.WaitAfter(req, attempt, err, 0)
}

// WaitAfter is Wait for a request whose first attempt began elapsed ago:
// with MaxTime set, a retry whose wait would end past MaxTime from then is
// not made.
func (p RetryPolicy) WaitAfter(req *Request, attempt int, err error, elapsed time.Duration) (time.Duration, bool) {
	d, ok := p.wait(req, attempt, err)
	if ok && p.MaxTime > 0 && elapsed+d > p.MaxTime {
		return 0, false
	}
	return d, ok
}

func (p RetryPolicy) wait(req *Request, attempt int, err error) (time.Duration, bool) {
	if attempt < 1 || attempt > p.Attempts || err == nil || !p.retryable(err) || req != nil && req.Message != nil {
		return 0, false
	}
	if p.Delay > 0 {
		return p.Delay, true
	}
	limit := p.MaxBackoff
	if limit <= 0 {
		limit = 30 * time.Second
	}
	if d, ok := RetryAfter(err); ok {
		if d > limit {
			return 0, false
		}
		return d, true
	}
	return jitter(backoff(p.Backoff, attempt, limit)), true
}

// backoff returns base·2^(attempt-1), capped at limit, without overflow.
func backoff(base time.Duration, attempt int, limit time.Duration) time.Duration {
	if base <= 0 {
		base = time.Second
	}
	d := base
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// jitter returns d less a random part of up to half of it, so that
// clients that failed together do not retry together.
func jitter(d time.Duration) time.Duration {
	half := d / 2
	if half <= 0 {
		return d
	}
	return d - rand.N(half+1)
}
