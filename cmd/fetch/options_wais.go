package main

// The WAIS options (schemes/wais).
func init() {
	schemeOptions = append(schemeOptions,
		option{long: "wais-chunk-size", arg: "N", help: "WAIS: bytes asked for in each retrieval range (default 10000)",
			set: func(c *config, v string) (err error) { c.schemes.WAISChunkSize, err = positive(v); return }},
		option{long: "wais-max-hits", arg: "N", help: "WAIS: most hits a search returns (default 40)",
			set: func(c *config, v string) (err error) { c.schemes.WAISMaxHits, err = positive(v); return }},
		option{long: "wais-no-init", help: "WAIS: skip the optional init exchange (default: sent first)",
			set: func(c *config, _ string) error { c.schemes.WAISNoInit = true; return nil }},
	)
}
