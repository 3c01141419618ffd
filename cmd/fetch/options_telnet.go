package main

// Options of the telnet scheme (RFC 1738 §3.8).
func init() {
	schemeOptions = append(schemeOptions,
		option{long: "telnet-login", help: "telnet: type the URL's user and password at the server's login and password prompts (default: only suggest them)",
			set: func(c *config, _ string) error { c.schemes.TelnetLogin = true; return nil }},
		option{long: "telnet-login-prompt", arg: "REGEXP", help: "telnet: pattern of the login prompt (default " + "`(?i)(login|user ?name|user)\\s*:\\s*$`" + ")",
			set: func(c *config, v string) error { c.schemes.TelnetLoginPrompt = v; return nil }},
		option{long: "telnet-password-prompt", arg: "REGEXP", help: "telnet: pattern of the password prompt (default `(?i)pass(word|phrase)?\\s*:\\s*$`)",
			set: func(c *config, v string) error { c.schemes.TelnetPasswordPrompt = v; return nil }},
	)
}
