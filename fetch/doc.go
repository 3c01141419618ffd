// Package fetch is the core of the fetcher: a Client that dispatches a
// parsed RFC 1738 URL to the Handler registered for its scheme, the
// Request and Resource that pass between them, the Error type and its
// Kinds, and the safety Policy applied to every request and every dial.
//
// # Fetching
//
// A Client does nothing until handlers are registered; schemes.Register
// (package github.com/rfc1738/fetch/schemes) registers every built-in one.
// Client.Fetch takes a URL string, Client.Do a Request; both return a
// Resource whose Body the caller reads and closes. Client.List returns the
// entries of a directory, menu or group as a Listing, for handlers that
// implement Lister. Client.Plan states the protocol lines a request means
// without connecting. Client.Do never modifies the Request it is given.
//
// # Redirects and referrals
//
// A handler performs one exchange. When the server answers that the
// resource is elsewhere (an HTTP 3xx with a Location, a Prospero
// referral), the handler returns a Resource whose Redirect names the
// target, and the Client follows it, in one place for every scheme: each
// hop passes the Policy, takes a per-host slot of its own host, carries
// the first request's credentials only back to the same host and scheme,
// and dials under the hop rule; a network resource never leads to a file:
// URL, nor to a scheme that names no data object. Client.MaxRedirects
// bounds the hops, Client.CheckRedirect may inspect or stop each one, and
// the final Resource lists the hops it came through in Via.
//
// # Failures
//
// Every error a Client returns is an *Error naming the URL (its password
// redacted) with a Kind: errors.Is(err, fetch.NotFound) tests the class. A
// failure a server's reply caused holds a *ReplyError with the reply's code
// and text; RetryAfter says how long the server asked to wait. A canceled
// context is always Kind Canceled. Server text in errors and traces is
// passed through Sanitize, so it cannot act on a terminal.
//
// # Safety
//
// The Policy refuses what RFC 1738 §6 warns of (a decoded CR, LF or NUL
// reaching a protocol line; another protocol's port), schemes outside
// Policy.Schemes, and, at dial time, private addresses with
// Policy.DenyPrivate, or a hop from a public address to a private one
// without it (or for a request marked FromPublic). Every connection is
// made through Request.DialContext (or package wire's Dial, which wraps
// it), which applies the Policy and uses Client.DialContext
// and Client.Resolver when set: that is where a program adds a proxy or a
// test network. A pooled connection is judged again, by
// Request.CheckReuse, before it is reused. At most Client.PerHost transfers
// to one address run at once, and a handler that pools connections keeps
// no more than that many open there (Request.MaxConnsPerHost); a handler that knows the address a URL
// without a host will dial says so as an Addresser, and each hop the
// Client follows gives up its slot before it takes one for its own host.
//
// # Retries
//
// RetryPolicy says whether a failure is worth another try (Transient
// kinds only, never a request that sends a message) and how long to wait:
// exponential backoff with jitter, capped, or the server's Retry-After.
//
// # Writing a handler
//
// A Handler follows the contract documented on the interface: it dials
// only through Request.DialContext (package wire's Dial returns a
// connection that puts the idle timeout on each Read and Write), bounds
// every wait (Request's EffectiveConnectTimeout and EffectiveIdleTimeout
// give the defaults),
// returns *Error values (Errorf, Wrap, Classify, and Reply for a server's
// reply), passes server text through Sanitize, and writes its protocol
// trace to Request.Trace. A Body's Close may be called while a Read is
// blocked and must abort it; Close drains at most a small bound before
// dropping the connection. Package wire holds the rest of a handler
// author's toolkit (Conn, Dial, Pool, Splicer, QuickAck), and package
// fetchtest checks a handler against this contract.
package fetch
