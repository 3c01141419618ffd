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
// without it. Every connection is made through Request.Dial or
// Request.DialContext, which apply the Policy and use Client.DialContext
// and Client.Resolver when set: that is where a program adds a proxy or a
// test network. At most Client.PerHost transfers to one address run at
// once.
package fetch
