package main

import (
	"fmt"
	"strconv"
)

// httpOptions are the options of the http and https schemes.
var httpOptions = []option{
	{long: "raw", help: "http(s), ftp: deliver the body as sent: still gzip-, br- or zstd-encoded, or FTP text with CR LF line ends (default: decoded, LF)",
		set: func(c *config, _ string) error { c.handlers.http.Raw, c.handlers.ftp.Raw = true, true; return nil }},
	{long: "compressed", schemes: []string{"http"}, help: "http(s): ask for a compressed body and decode it (gzip, br, zstd), which fetch does anyway unless --raw; accepted for curl's sake",
		set: func(c *config, _ string) error { return nil }},
	{long: "user-agent", short: 'A', arg: "NAME", schemes: []string{"http"}, help: "http(s): the User-Agent header (default: fetch/VERSION)",
		set: func(c *config, v string) error { c.handlers.http.UserAgent = v; return nil }},
	{long: "pipeline", arg: "N", help: "http: with more transfers to a host than --per-host connections, write up to N requests at once on each connection and read the replies in turn (HTTP/1.1 pipelining; default 1: none)",
		set: func(c *config, v string) (err error) { c.handlers.http.Pipeline, err = positive(v); return }},
	{long: "http2", help: "https: offer HTTP/2 in the TLS handshake and speak it to a server that takes it (default: HTTP/1.1, which moves a body with less CPU)",
		set: func(c *config, _ string) error { c.handlers.http.HTTP2 = true; return nil }},
	{long: "parallel-immediate", help: "https: dial every connection at once, each with a full TLS handshake (default: connections to a server wait for its first one's session, and resume it)",
		set: func(c *config, _ string) error { c.handlers.http.ParallelImmediate = true; return nil }},
	{long: "http1.1", help: "http(s): speak HTTP/1.1, the default (curl's option, accepted as it is; undoes an earlier --http2)",
		set: func(c *config, _ string) error { c.handlers.http.HTTP2 = false; return nil }},
	{long: "max-redirs", arg: "N", help: "follow at most N redirects and referrals (http(s), prospero; default 10; 0 follows none)",
		set: func(c *config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("want a whole number, got %q", v)
			}
			if n == 0 {
				n = -1 // the Client's zero means its default
			}
			c.maxRedirs = n
			return nil
		}},
}
