package main

// nntpOptions are the options of the news and nntp schemes.
var nntpOptions = []option{
	{
		long: "nntp-server", arg: "HOST[:PORT]",
		help: "news server for news: and snews: URLs (default: $NNTPSERVER; port 119, 563 for snews)",
		set: func(c *config, v string) error {
			c.handlers.news.Server = v
			return nil
		},
	},
	{
		long: "nntp-descriptions",
		help: "list news:* groups with their descriptions (LIST NEWSGROUPS) instead of LIST ACTIVE",
		set: func(c *config, _ string) error {
			c.handlers.news.Descriptions = true
			return nil
		},
	},
}
