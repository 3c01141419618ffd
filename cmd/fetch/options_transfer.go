package main

// transferOptions are the options that shape each transfer and what is
// said about it: -w and its kin.
var transferOptions = []option{
	{long: "write-out", short: 'w', arg: "FORMAT", help: "after each URL, print FORMAT with its %{variables} filled in (@FILE reads it; see Write-out variables below)",
		set: func(c *config, v string) error { c.writeOut, c.hasWriteOut = v, true; return nil }},
}
