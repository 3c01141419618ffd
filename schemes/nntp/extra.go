package nntp

// Keys of fetch.Resource.Extra that this package sets, for display by a
// metadata-only fetch.
const (
	ExtraGroup        = "nntp-group"      // the newsgroup
	ExtraArticle      = "nntp-article"    // the article number
	ExtraMessageID    = "nntp-message-id" // the article's Message-ID
	ExtraList         = "nntp-list"       // what a list holds: "overview", "active" or "newsgroups"
	ExtraCount        = "nntp-count"      // the group's estimated article count
	ExtraLow          = "nntp-low"        // the group's lowest article number
	ExtraHigh         = "nntp-high"       // the group's highest article number
	ExtraHeaderPrefix = "nntp-"           // prefixed to a lower-case article header name ("nntp-subject")
)
