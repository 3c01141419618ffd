package main

// configOptions are the options of config files: --config, -q.
var configOptions = []option{
	{long: "config", arg: "FILE", help: "read default options from FILE, in curl's config syntax (one option a line; see -K); the command line's win",
		set: func(c *config, v string) error { c.configFiles = append(c.configFiles, v); return nil }},
	{long: "disable", short: 'q', help: "do not read ~/.fetchrc, the file of default options",
		set: func(c *config, _ string) error { c.noRC = true; return nil }},
}
