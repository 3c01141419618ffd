// Package wire is what a scheme handler needs beneath the fetch.Client:
// connections on which every wait has a deadline (Conn, Dial), a pool of
// idle connections (Pool), copying a body from a socket into an output
// without a copy through the process (Splicer, TCPConn), and socket
// options that keep a line protocol from stalling (QuickAck).
//
// A program that only fetches never needs it: package fetch is the
// user's API, and this package is the handler author's toolkit, as
// net/textproto is beside net/http.
package wire
