// Package fetch is the core of the fetcher: a Client that dispatches a parsed
// RFC 1738 URL to the Handler registered for its scheme, the Request and
// Resource that pass between them, the Error type whose Kind maps one-to-one
// onto the command's exit codes, and the safety policy of RFC 1738 §6 that is
// applied before any handler dials.
//
// Handlers live in the schemes/... packages; schemes.Register wires them all
// into a Client.
package fetch
