package fetch

// Keys of Resource.Extra, the per-scheme metadata shown by a metadata-only
// fetch. Each is set only by the schemes named.
const (
	ExtraFTPType = "ftp-type" // FTP: the transfer type used, "A" or "I"

	ExtraHTTPStatus            = "http-status"             // HTTP: the status line's code and text, "200 OK"
	ExtraHTTPVersion           = "http-version"            // HTTP: the protocol version, "HTTP/1.1"
	ExtraETag                  = "etag"                    // HTTP: the entity tag
	ExtraContentEncoding       = "content-encoding"        // HTTP: the content coding of the body as sent
	ExtraHTTPTotalSize         = "http-total-size"         // HTTP: the whole resource's size when a range was sent
	ExtraGopherType            = "gopher-type"             // gopher: the item type character
	ExtraGopherPlus            = "gopher-plus"             // gopher: the Gopher+ request string sent
	ExtraWAISType              = "wais-type"               // WAIS: the document type retrieved
	ExtraWAISHits              = "wais-hits"               // WAIS: the number of documents a search found
	ExtraNNTPGroup             = "nntp-group"              // news, NNTP: the newsgroup
	ExtraNNTPArticle           = "nntp-article"            // news, NNTP: the article number
	ExtraNNTPMessageID         = "nntp-message-id"         // news, NNTP: the article's Message-ID
	ExtraNNTPList              = "nntp-list"               // news, NNTP: what a list holds: "overview", "active" or "newsgroups"
	ExtraNNTPCount             = "nntp-count"              // news, NNTP: the group's estimated article count
	ExtraNNTPLow               = "nntp-low"                // news, NNTP: the group's lowest article number
	ExtraNNTPHigh              = "nntp-high"               // news, NNTP: the group's highest article number
	ExtraNNTPHeaderPrefix      = "nntp-"                   // news, NNTP: prefixed to a lower-case article header name ("nntp-subject")
	ExtraMailAddress           = "address"                 // mailto: the recipient
	ExtraMailMessageID         = "message-id"              // mailto: the Message-ID of the message sent
	ExtraMailRelay             = "relay"                   // mailto: the relay that took the message
	ExtraMailReply             = "reply"                   // mailto: the relay's final reply
	ExtraProsperoUnixModes     = "prospero-unix-modes"     // Prospero: the object's Unix permission bits
	ExtraProsperoAccessMethod  = "prospero-access-method"  // Prospero: the access method used
	ExtraProsperoAccessMethods = "prospero-access-methods" // Prospero: the access methods the server offered
)
