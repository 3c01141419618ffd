package fetch

// Keys of Resource.Extra that more than one part of the module reads (the
// WARC writer, the command line). The keys each scheme sets for display
// are its package's own (ftp.ExtraType, nntp.ExtraGroup, ...).
const (
	ExtraHTTPStatus      = "http-status"      // HTTP: the status line's code and text, "200 OK"
	ExtraHTTPVersion     = "http-version"     // HTTP: the protocol version, "HTTP/1.1"
	ExtraETag            = "etag"             // HTTP: the entity tag
	ExtraContentEncoding = "content-encoding" // HTTP: the content coding of the body as sent
)
