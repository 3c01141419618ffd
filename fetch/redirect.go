package fetch

import (
	"bytes"
	"errors"
	"io"

	"github.com/rfc1738/fetch/url"
)

// ErrUseLastResponse, returned by Client.CheckRedirect, makes Do return
// the redirect just received, its Body open, instead of following it.
var ErrUseLastResponse = errors.New("fetch: use the last response")

// DefaultMaxRedirects is the number of redirects and referrals a Client
// follows for one request when its MaxRedirects is zero.
const DefaultMaxRedirects = 10

// maxRedirects returns the hop limit: MaxRedirects, DefaultMaxRedirects
// when it is zero, none when it is negative.
func (c *Client) maxRedirects() int {
	switch {
	case c.MaxRedirects == 0:
		return DefaultMaxRedirects
	case c.MaxRedirects < 0:
		return 0
	}
	return c.MaxRedirects
}

// hops is the following of one request's redirects and referrals: the
// resources passed on the way, and the credentials of the first request,
// which go only back to the host and scheme they were given for.
type hops struct {
	op    string // "fetch" or "list", for errors
	via   []*Resource
	first *url.URL
	creds *url.Userinfo
}

// next judges the redirect res, received for the Client's copy r of a
// request, and returns the request of the hop to make; or nil, with a nil
// error, when CheckRedirect asked for res itself. With an error, res's
// Body is closed. Before it returns a hop, next closes res's Body (read
// first, and kept when small, for a request that asks for captures: see
// keepHopBody), which frees r's per-host slot: the hop then takes one of its own host's, and
// two fetches that redirect into each other's hosts cannot hold each
// other's slots.
func (hs *hops) next(c *Client, r *Request, res *Resource) (*Request, error) {
	if hs.first == nil {
		hs.first, hs.creds = r.URL, r.Credentials()
	}
	target := res.Redirect
	fail := func(err error) (*Request, error) {
		res.Body.Close()
		return nil, c.decorate(hs.op, r.URL, err)
	}
	max := c.maxRedirects()
	if len(hs.via) >= max {
		return fail(Errorf(Protocol, "redirect to %s not followed: the redirect limit is %d", target.Redacted(), max))
	}
	if err := hopAllowed(r.URL, target); err != nil {
		return fail(err)
	}
	next := r.follow(target)
	if target.User == nil && hs.creds != nil && sameCredentialScope(hs.first, target) {
		next.User = hs.creds // back to the host the credentials were given for
	}
	hs.via = append(hs.via, res)
	if c.CheckRedirect != nil {
		if err := c.CheckRedirect(next, hs.via); err != nil {
			hs.via = hs.via[:len(hs.via)-1]
			if errors.Is(err, ErrUseLastResponse) {
				return nil, nil
			}
			return fail(err)
		}
	}
	r.Trace.Notef("redirect %d of at most %d: to %s", len(hs.via), max, target.Redacted())
	if r.Capture {
		res.Body = keepHopBody(res.Body)
	} else {
		res.Body.Close()
		res.Body = NoBody
	}
	return next, nil
}

// MaxHopBody is the longest body of a hop that the Client keeps, when
// the request asks for captures (Request.Capture), for an archive to
// record.
const MaxHopBody = 64 << 10

// keepHopBody reads a hop's body, closes it, and returns it in memory
// when it came whole within MaxHopBody bytes; NoBody otherwise.
func keepHopBody(body io.ReadCloser) io.ReadCloser {
	b, err := io.ReadAll(io.LimitReader(body, MaxHopBody+1))
	body.Close()
	if err != nil || len(b) > MaxHopBody {
		return NoBody
	}
	return io.NopCloser(bytes.NewReader(b))
}

// end returns the result of a followed fetch: res, with the hops passed
// on the way in Via, or err.
func (hs *hops) end(res *Resource, err error) (*Resource, error) {
	if err != nil {
		return nil, err
	}
	if res != nil && len(hs.via) > 0 {
		res.Via = hs.via
	}
	return res, nil
}

// hopAllowed applies the rules of a hop whatever the Policy: a network
// resource never leads to a local file, nor to a scheme that names no
// data object (mailto, telnet), and an unknown scheme is not followed.
func hopAllowed(from, to *url.URL) error {
	if to.Scheme == "file" && from.Scheme != "file" {
		return Errorf(Refused, "redirect to %s refused: a network resource may not lead to a local file", to.Redacted())
	}
	s, known := url.LookupScheme(to.Scheme)
	switch {
	case !known:
		return Errorf(Unsupported, "redirect to the unknown scheme %q", to.Scheme)
	case !s.Data:
		return Errorf(Refused, "redirect to %s refused: %s names no data object to fetch", to.Redacted(), to.Scheme)
	}
	return nil
}

// RedirectListing returns a Listing that stands for a redirect or a
// referral, for a Lister asked to list a page or directory that is
// elsewhere: res is the reply, with its Redirect set, and closing the
// Listing closes res's Body. Client.List follows it as Do follows a
// redirect; Next on it returns an error.
func RedirectListing(res *Resource) *Listing {
	l := NewListing(func() (Entry, error) {
		return Entry{}, Errorf(Protocol, "the listing is a redirect to %s", res.Redirect.Redacted())
	}, res.Body)
	l.redirect = res
	return l
}

// listingBody is the Body of the Resource a redirect Listing stands for,
// while the Client judges it: it has nothing to read, and closing it
// closes the Listing.
type listingBody struct{ l *Listing }

func (listingBody) Read([]byte) (int, error) { return 0, io.EOF }
func (b listingBody) Close() error           { return b.l.Close() }
