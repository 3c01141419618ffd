package fetch

import (
	"context"
	"crypto/tls"
	"io"
	"time"

	"github.com/rfc1738/fetch/url"
)

// Handler is a scheme's access method, in the shape of net/http's
// RoundTripper.
//
// Fetch performs the access the request's URL names and returns the
// resource. The Resource is non-nil exactly when the error is nil, and its
// Body is never nil. The caller closes Body; Close finishes the protocol
// (reads FTP's final reply, drains NNTP's "." line), releases or pools the
// connection, and is safe to call twice. A Body whose stream ends before the
// resource did returns an error of Kind Incomplete from Read, never io.EOF.
//
// Errors should be *Error values with a Kind (see Errorf, Wrap, Classify);
// the Client adds the redacted URL. No error may contain a password.
// Fetch must honour ctx for every wait, including reads of Body.
//
// Optional abilities are further interfaces a Handler may implement: Planner
// for --dry-run, io.Closer for handlers that pool connections.
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

// Request is one fetch: the URL, and the per-call wishes a URL cannot carry.
// The Client fills the zero fields from its own settings before the handler
// sees it.
type Request struct {
	// URL is the URL to fetch. It must not be nil.
	URL *url.URL
	// User holds credentials to use when the URL has none (-u, .netrc).
	User *url.Userinfo
	// Hop marks a request a handler makes on the way to another (an HTTP
	// redirect, a Prospero AFTP referral) rather than one from the user.
	// The Client lends a hop none of its own credentials (Client.User):
	// they were given for the first host, not for wherever a server sends
	// us next.
	Hop bool
	// Offset asks to resume at this byte offset (FTP REST, HTTP Range). A
	// handler that honours it sets Resource.Offset.
	Offset int64
	// Head asks for metadata only: the Resource's Body is then NoBody.
	Head bool
	// Message is the message to send, for schemes that send (mailto).
	Message io.Reader
	// Trace receives the protocol trace; nil traces nothing.
	Trace *Trace
	// ConnectTimeout bounds each dial. Zero means 30 seconds.
	ConnectTimeout time.Duration
	// IdleTimeout bounds each wait for the peer to send or accept data.
	// Zero means 60 seconds.
	IdleTimeout time.Duration
	// TLS configures TLS for the secure schemes; nil means the defaults
	// (system roots, verification on).
	TLS *tls.Config
	// Prompt asks the user for a value (a password, a search string) when
	// a terminal is there to answer; nil means no one can be asked, and a
	// handler that needs an answer fails with Kind Auth or Usage.
	Prompt func(label string, secret bool) (string, error)
}

// Credentials returns the URL's user and password when it has a user, else
// the request's User, else nil.
func (r *Request) Credentials() *url.Userinfo {
	if r.URL != nil && r.URL.User != nil {
		return r.URL.User
	}
	return r.User
}

func (r *Request) connectTimeout() time.Duration {
	if r.ConnectTimeout > 0 {
		return r.ConnectTimeout
	}
	return 30 * time.Second
}

func (r *Request) idleTimeout() time.Duration {
	if r.IdleTimeout > 0 {
		return r.IdleTimeout
	}
	return 60 * time.Second
}
