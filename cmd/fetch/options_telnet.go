package main

import (
	"github.com/rfc1738/fetch/schemes/telnet"
)

// telnetOptions are the options of the telnet scheme (RFC 1738 §3.8); the
// session itself runs in session.go.
var telnetOptions = []option{
	{long: "telnet-login", help: "telnet: type the URL's user and password at the server's login and password prompts (default: only suggest them)",
		set: func(c *config, _ string) error { c.handlers.telnet.Login = true; return nil }},
	{long: "telnet-login-prompt", arg: "REGEXP", help: "telnet: pattern of the login prompt (default `" + telnet.DefaultLoginPrompt + "`)",
		set: func(c *config, v string) error { c.handlers.telnet.LoginPrompt = v; return nil }},
	{long: "telnet-password-prompt", arg: "REGEXP", help: "telnet: pattern of the password prompt (default `" + telnet.DefaultPasswordPrompt + "`)",
		set: func(c *config, v string) error { c.handlers.telnet.PasswordPrompt = v; return nil }},
}
