package main

// traceOptions are the options of the protocol trace beside -v.
var traceOptions = []option{
	{long: "trace", arg: "FILE", help: "write the protocol trace of -v to FILE (- for stdout) rather than stderr",
		set: func(c *config, v string) error { c.traceFile = v; return nil }},
	{long: "trace-time", help: "begin each line of the protocol trace with the time of day (HH:MM:SS.micros)",
		set: func(c *config, _ string) error { c.traceTime = true; return nil }},
}
