package main

// authConfig is what the authentication options set beyond -u and
// --netrc.
type authConfig struct {
	netrcFile string // --netrc-file
}

// authOptions are the authentication options, after curl's.
var authOptions = []option{
	{long: "netrc-file", arg: "FILE", help: "take credentials from FILE (netrc format), for URLs that carry none; FILE must exist",
		set: func(c *config, v string) error { c.auth.netrcFile, c.netrc = v, true; return nil }},
	{long: "netrc-optional", help: "as --netrc: ~/.netrc (or $NETRC) may be missing, and credentials in the URL or -u win",
		set: func(c *config, _ string) error { c.netrc = true; return nil }},
}

// httpAuthOptions are the authentication options of http(s) alone.
var httpAuthOptions = []option{
	{long: "digest", schemes: []string{"http"}, help: "http(s): send -u or URL credentials by Digest (RFC 7616), answering the server's challenge, instead of Basic",
		set: func(c *config, _ string) error { c.handlers.http.Digest = true; return nil }},
	{long: "oauth2-bearer", arg: "TOKEN", schemes: []string{"http"}, help: "http(s): send Authorization: Bearer TOKEN (RFC 6750) to the URLs given, not to redirects",
		set: func(c *config, v string) error { c.handlers.http.BearerToken = v; return nil }},
}
