package main

// waisOptions are the WAIS options (schemes/wais).
var waisOptions = []option{
	{long: "wais-chunk-size", arg: "N", help: "WAIS: bytes asked for in each retrieval range, at most what the server's message size allows (default: as many as it allows)",
		set: func(c *config, v string) (err error) { c.handlers.wais.ChunkSize, err = positive(v); return }},
	{long: "wais-max-hits", arg: "N", help: "WAIS: most hits a search returns (default 40)",
		set: func(c *config, v string) (err error) { c.handlers.wais.MaxHits, err = positive(v); return }},
	{long: "wais-no-init", help: "WAIS: skip the optional init exchange (default: sent first)",
		set: func(c *config, _ string) error { c.handlers.wais.NoInit = true; return nil }},
}
