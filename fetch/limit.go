package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"

	"golang.org/x/time/rate"
)

// LimitSize holds res to at most max bytes of resource: it returns an
// error of Kind TooLarge, naming res's URL, when the resource's announced
// size (Offset plus Size) is larger, and otherwise wraps res.Body so that a
// read past max fails with Kind TooLarge, for resources whose size is not
// known in advance. A max of zero or less allows any size. The caller
// still closes res.Body.
func LimitSize(res *Resource, max int64) error {
	if max <= 0 {
		return nil
	}
	if res.Size >= 0 && res.Offset+res.Size > max {
		return &Error{Op: "fetch", URL: redactedURL(res), Kind: TooLarge,
			Err: fmt.Errorf("%d bytes, more than the %d allowed", res.Offset+res.Size, max)}
	}
	res.Body = &sizeLimited{rc: res.Body, left: max - res.Offset, max: max, url: redactedURL(res)}
	return nil
}

func redactedURL(res *Resource) string {
	if res.URL == nil {
		return ""
	}
	return res.URL.Redacted()
}

type sizeLimited struct {
	rc   io.ReadCloser
	left int64 // bytes still allowed
	max  int64
	url  string
}

func (s *sizeLimited) Read(p []byte) (int, error) {
	if s.left < 0 {
		return 0, s.tooLarge()
	}
	// Read one byte more than allowed, to tell "exactly max" from "more".
	if int64(len(p)) > s.left+1 {
		p = p[:s.left+1]
	}
	n, err := s.rc.Read(p)
	s.left -= int64(n)
	if s.left < 0 {
		return n + int(s.left), s.tooLarge()
	}
	return n, err
}

func (s *sizeLimited) tooLarge() error {
	return &Error{Op: "read", URL: s.url, Kind: TooLarge, Err: fmt.Errorf("more than the %d bytes allowed", s.max)}
}

func (s *sizeLimited) Close() error { return s.rc.Close() }

// LimitRate returns rc wrapped so that it is read at no more than
// bytesPerSecond bytes a second on average (a token bucket holding a
// tenth of a second's bytes, at least one, at most 1 MiB); waits end when
// ctx is done, with ctx's cause, and a wait that would pass ctx's deadline
// is a Timeout at once. A bytesPerSecond of zero or less returns rc itself.
// Closing the wrapper closes rc.
func LimitRate(ctx context.Context, rc io.ReadCloser, bytesPerSecond int64) io.ReadCloser {
	if bytesPerSecond <= 0 {
		return rc
	}
	burst := max(bytesPerSecond/10, 1)
	burst = min(burst, 1<<20)
	return &rateLimited{ctx: ctx, rc: rc, lim: rate.NewLimiter(rate.Limit(bytesPerSecond), int(burst)), burst: int(burst)}
}

type rateLimited struct {
	ctx   context.Context
	rc    io.ReadCloser
	lim   *rate.Limiter
	burst int
}

func (r *rateLimited) Read(p []byte) (int, error) {
	if len(p) > r.burst {
		p = p[:r.burst]
	}
	n, err := r.rc.Read(p)
	if n > 0 {
		// The bytes read are paid for before the next read: the
		// average over the transfer is the rate.
		if werr := r.lim.WaitN(r.ctx, n); werr != nil {
			if cause := context.Cause(r.ctx); errors.Is(cause, context.DeadlineExceeded) {
				return n, Wrap(Timeout, cause)
			} else if cause != nil {
				return n, Wrap(Canceled, cause)
			}
			return n, Errorf(Timeout, "at the rate limit the transfer cannot end before its deadline")
		}
	}
	return n, err
}

func (r *rateLimited) Close() error { return r.rc.Close() }
