package main

// ftpOptions are the FTP options (schemes/ftp).
var ftpOptions = []option{
	{long: "ftp-password", arg: "EMAIL", help: "FTP: password of anonymous logins, your e-mail address (default $FETCH_FTP_PASSWORD)",
		set: func(c *config, v string) error { c.handlers.ftp.AnonymousPassword = v; return nil }},
	{long: "ftp-active", help: "FTP: active mode, the server connects for data (EPRT, PORT); default passive (EPSV, PASV)",
		set: func(c *config, _ string) error { c.handlers.ftp.Active = true; return nil }},
	{long: "ftp-pasv", help: "FTP: passive mode (the default)",
		set: func(c *config, _ string) error { c.handlers.ftp.Active = false; return nil }},
	{long: "ftp-ssl", help: "FTP: secure ftp:// URLs with AUTH TLS, failing when the server has none (ftps:// is implicit TLS)",
		set: func(c *config, _ string) error { c.handlers.ftp.ExplicitTLS = true; return nil }},
}
