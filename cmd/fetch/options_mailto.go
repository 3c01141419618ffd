package main

// mailtoOptions are the options of the mailto scheme (RFC 1738 §3.5).
var mailtoOptions = []option{
	{long: "smtp-relay", arg: "RELAY", help: "mailto: the SMTP relay to send through: HOST[:PORT] or smtp[s]://[USER[:PASS]@]HOST[:PORT] (default $FETCH_SMTP)",
		set: func(c *config, v string) error { c.handlers.mailto.Relay = v; return nil }},
	{long: "mail-from", arg: "ADDRESS", help: "mailto: the envelope sender (default the message's From, else $USER@this host)",
		set: func(c *config, v string) error { c.handlers.mailto.From = v; return nil }},
}
