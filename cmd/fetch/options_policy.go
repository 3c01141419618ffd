package main

import (
	"fmt"
	"strings"

	"github.com/rfc1738/fetch/url"
)

// policyOptions are the safety options: which schemes may be fetched and
// which addresses dialed (fetch.Policy). A refusal exits 11.
var policyOptions = []option{
	{long: "no-private", help: "refuse to connect to loopback, private, link-local (cloud metadata) and multicast addresses, checked on each resolved address",
		set: func(c *config, _ string) error { c.policy.DenyPrivate = true; return nil }},
	{long: "allow-schemes", arg: "LIST", help: "fetch only URLs (and follow only redirects and referrals) of these comma-separated schemes",
		set: func(c *config, v string) error {
			c.policy.Schemes = c.policy.Schemes[:0]
			for _, s := range strings.Split(v, ",") {
				s = strings.ToLower(strings.TrimSpace(s))
				if _, ok := url.LookupScheme(s); !ok {
					return fmt.Errorf("unknown scheme %q", s)
				}
				c.policy.Schemes = append(c.policy.Schemes, s)
			}
			return nil
		}},
}
