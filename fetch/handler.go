package fetch

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/rfc1738/fetch/url"
)

// Handler is a scheme's access method, in the shape of net/http's
// RoundTripper.
//
// Fetch performs the one exchange the request's URL names and returns
// the resource. The Resource is non-nil exactly when the error is nil,
// and its Body is never nil. Fetch must not modify the request. Like
// RoundTrip, Fetch does not follow redirects or referrals: when the server
// answers that the resource is elsewhere (an HTTP 3xx, a Prospero
// FORWARDED reply or AFTP access method), Fetch returns a Resource whose
// Redirect names the target, and the Client follows it, with its policy,
// slots, credentials and hop limit.
//
// The caller closes Body. Close finishes the protocol (reads FTP's final
// reply, drains NNTP's "." line) and pools or releases the connection; it
// is safe to call twice. Close may be called while a Read is blocked, from
// another goroutine, and aborts that Read. Close of a body not read to its
// end drains at most a small bound (a few KiB, for a second or so) and
// then drops the connection rather than pooling it, as net/http does. A
// Body whose stream ends before the resource did returns an error of Kind
// Incomplete from Read, never io.EOF.
//
// Errors should be *Error values with a Kind (see Errorf, Wrap, Reply and
// Classify); a failure a server's reply caused holds a *ReplyError. The
// Client adds the redacted URL. No error may contain a password, and
// server-supplied text in an error is passed through Sanitize. Fetch must
// honour ctx for every wait, including reads of Body, and dial only through
// Request.DialContext (or package wire's Dial), which apply the Policy.
//
// Optional abilities are further interfaces a Handler may implement:
// Planner, to state a request's protocol lines without connecting; Lister,
// to list a directory, menu or group as entries; Pipeliner, for handlers
// whose connections carry more than one request at a time; io.Closer, for
// handlers that pool connections; IdleCloser, for those that can close
// their idle connections to one address.
type Handler interface {
	Fetch(ctx context.Context, req *Request) (*Resource, error)
}

// HandlerFunc adapts a function to the Handler interface.
type HandlerFunc func(ctx context.Context, req *Request) (*Resource, error)

// Fetch calls f(ctx, req).
func (f HandlerFunc) Fetch(ctx context.Context, req *Request) (*Resource, error) { return f(ctx, req) }

// Planner is implemented by handlers that can state, without touching the
// network, the protocol lines a request means: FTP commands, the gopher
// selector line, NNTP commands, the HTTP request line. Passwords appear as
// "****". Lines carry no CR LF.
type Planner interface {
	Plan(req *Request) ([]string, error)
}

// Pipeliner is implemented by handlers whose connections can carry more
// than one request at a time (HTTP/1.1 pipelining). Pipelining returns
// how many requests for URLs like u (its scheme, host and port) one
// connection carries; a value below 2 means one. The per-host cap
// (Client.PerHost, which a Batch's PerHost may lower) counts connections'
// worth of transfers: to such a host, PerHost times Pipelining transfers
// may be in progress, over no more than PerHost connections
// (Request.MaxConnsPerHost).
type Pipeliner interface {
	Pipelining(u *url.URL) int
}

// perConn returns the transfers one connection of h carries at once for
// URLs like u: its Pipelining when it is a Pipeliner, else 1.
func perConn(h Handler, u *url.URL) int {
	if p, ok := h.(Pipeliner); ok {
		if n := p.Pipelining(u); n > 1 {
			return n
		}
	}
	return 1
}

// Request is one fetch: the URL, and the per-call wishes a URL cannot carry.
// Client.Do never modifies a Request: it gives the handler a copy whose
// zero fields it has filled from its own settings.
type Request struct {
	// URL is the URL to fetch. It must not be nil.
	URL *url.URL
	// User holds credentials to use when the URL has none (given apart
	// from the URL, or from a .netrc file).
	User *url.Userinfo
	// Hop marks a request the Client makes to follow a redirect or a
	// referral rather than one from the user. The Client lends a hop none
	// of its own credentials (Client.User): they were given for the first
	// host, not for wherever a server sends us next.
	Hop bool
	// FromPublic marks a request that follows from a resource served by a
	// public address, such as a crawler's request for a link found in a
	// page whose Resource.FromPublic was set: its dials refuse private
	// addresses, as a redirect's from a public server do (see
	// Request.DialContext). The address is judged at each dial, on the
	// address dialed.
	FromPublic bool
	// Jar holds the cookies of the schemes that carry them (HTTP): the
	// handler sends the jar's cookies for the URL and stores those each
	// reply sets, redirects included. Nil means the Client's Jar; nil
	// there too means no cookies are kept.
	Jar http.CookieJar
	// Offset asks to resume at this byte offset (FTP REST, HTTP Range). A
	// handler that honours it sets Resource.Offset.
	Offset int64
	// Head asks for metadata only: the Resource's Body is then NoBody.
	Head bool
	// Header holds request header fields for the schemes that send them
	// (HTTP: Accept, Cookie, If-None-Match, ...). Nil sends only the
	// handler's own. A field whose values are all empty asks that no field
	// of that name be sent, not even the handler's own (User-Agent, ...).
	Header http.Header
	// IfModifiedSince, when not zero, makes the fetch conditional: a
	// resource not modified since then fails with Kind NotModified and
	// moves no body. HTTP sends If-Modified-Since, FTP compares MDTM, file
	// the file's modification time; other schemes ignore it.
	IfModifiedSince time.Time
	// ErrorBody, when set, receives the body of a reply that is an error
	// (HTTP: a status of 400 or more), copied as it arrives before the
	// error is returned; nil discards it. Schemes whose errors have no
	// body ignore it.
	ErrorBody io.Writer
	// Capture asks the handler to keep the heads of the exchange as they
	// went over the connection in Resource.Capture (the hops' too), for
	// an archive: the http handler keeps them. Handlers that cannot
	// ignore it.
	Capture bool
	// WantModTime asks for the resource's modification time where the
	// protocol tells it only when asked (FTP's MDTM, one more command):
	// Resource.ModTime then holds it. Schemes that always tell (HTTP's
	// Last-Modified, a file's time) ignore it.
	WantModTime bool
	// Message is the message to send, for schemes that send (mailto).
	Message io.Reader
	// Trace receives the protocol trace; nil traces nothing.
	Trace *Trace
	// Timing, when set, records when the request's names were looked up
	// and its connections made, and counts its hops (see Timing); nil
	// records nothing.
	Timing *Timing
	// ConnectTimeout bounds each dial. Zero means the Client's, else
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// IdleTimeout bounds each wait for the peer to send or accept data.
	// Zero means the Client's, else DefaultIdleTimeout.
	IdleTimeout time.Duration
	// TLS configures TLS for the secure schemes; nil means the defaults
	// (system roots, verification on).
	TLS *tls.Config
	// Prompt asks the user for a value (a password, a search string) when
	// a terminal is there to answer; nil means no one can be asked, and a
	// handler that needs an answer fails with Kind Auth or Usage.
	Prompt func(label string, secret bool) (string, error)

	// Set by the Client on its copy; the zero values dial with a
	// net.Dialer under the zero Policy.
	policy   Policy
	dialer   func(ctx context.Context, network, addr string) (net.Conn, error)
	resolver Resolver
	net      *netOpts
	chain    *chain
	perHost  int // the Client's PerHost (see MaxConnsPerHost)
	// slot is the per-host slot the Client holds for this request while
	// its handler runs.
	slot *heldSlot
}

// Credentials returns the URL's user and password when it has a user, else
// the request's User, else nil.
func (r *Request) Credentials() *url.Userinfo {
	if r.URL != nil && r.URL.User != nil {
		return r.URL.User
	}
	return r.User
}

// follow returns the request for a hop from r to u: an HTTP redirect, a
// Prospero referral, counted in r's Timing. The hop keeps r's per-call settings (offset, head,
// conditions, timeouts, TLS, jar, trace, timing, prompt) and header fields, less
// those that carry credentials (Authorization, Cookie, ...) when the hop
// leaves r's host; it has Hop set and no User, so that it carries no
// credentials but those in u. It shares r's chain, so that when it dials,
// a hop from a public address to a private one is refused.
func (r *Request) follow(u *url.URL) *Request {
	r.Timing.hop()
	h := *r
	h.URL = u
	h.Hop = true
	h.User = nil
	h.Message = nil
	h.slot = nil
	if r.Header != nil {
		h.Header = r.Header.Clone()
		if r.URL == nil || !sameCredentialScope(r.URL, u) {
			for _, k := range credentialHeaders {
				h.Header.Del(k)
			}
		}
	}
	return &h
}

// sameCredentialScope reports whether credentials given for from may go
// with a request for to: the same host and port, by the same scheme or
// from http to https (never from a secure scheme to a plain one).
func sameCredentialScope(from, to *url.URL) bool {
	if from.Host != to.Host || from.EffectivePort() != to.EffectivePort() {
		return false
	}
	return from.Scheme == to.Scheme || from.Scheme == "http" && to.Scheme == "https"
}

// credentialHeaders are the header fields a hop to another host drops.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Www-Authenticate", "Cookie", "Cookie2"}

// EffectiveConnectTimeout returns ConnectTimeout, or DefaultConnectTimeout
// when it is zero.
func (r *Request) EffectiveConnectTimeout() time.Duration {
	if r.ConnectTimeout > 0 {
		return r.ConnectTimeout
	}
	return DefaultConnectTimeout
}

// MaxConnsPerHost returns how many connections the request's handler may
// keep open to its host and port, idle or in use: the PerHost of the
// Client that made the request, 2 when that is zero, and 0, no cap, when
// it is negative. A handler that pools connections sizes its pool by it,
// so that the Client's per-host cap is the one cap on both transfers and
// connections, whenever PerHost was set. A request made without a Client
// (a handler called directly) gets 2, as from a zero Client.
func (r *Request) MaxConnsPerHost() int { return perHostCap(r.perHost) }

// EffectiveIdleTimeout returns IdleTimeout, or DefaultIdleTimeout when it
// is zero. Handlers use it for every wait on the peer.
func (r *Request) EffectiveIdleTimeout() time.Duration {
	if r.IdleTimeout > 0 {
		return r.IdleTimeout
	}
	return DefaultIdleTimeout
}
