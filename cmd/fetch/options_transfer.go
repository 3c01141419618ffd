package main

// transferOptions are the options that shape each transfer and what is
// said about it: -w and its kin.
var transferOptions = []option{
	{long: "write-out", short: 'w', arg: "FORMAT", help: "after each URL, print FORMAT with its %{variables} filled in (@FILE reads it; see Write-out variables below)",
		set: func(c *config, v string) error { c.writeOut, c.hasWriteOut = v, true; return nil }},
	{long: "fail-with-body", schemes: []string{"http"}, help: "http(s): on an error status, still write the server's error page to stdout or the file; the exit code is the error's",
		set: func(c *config, _ string) error { c.failWithBody = true; return nil }},
}
