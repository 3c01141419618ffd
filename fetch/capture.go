package fetch

// Capture is one exchange's request and reply heads as they went over the
// connection, kept for an archive (fetch/warc records them). A handler
// fills Resource.Capture when Request.Capture asks for it and it can.
type Capture struct {
	// Protocol names the protocol of the exchange as WARC-Protocol does:
	// "http/1.1", "h2".
	Protocol string
	// TLS names the TLS version the exchange went over as WARC-Protocol
	// does ("tls/1.2", "tls/1.3"), a second protocol beside Protocol; ""
	// when it went over none.
	TLS string
	// Rendered reports that the heads were not kept as bytes: Request and
	// Reply are nil, and a reader renders them from the Resource (HTTP/2's
	// frames, or an exchange the handler made through a library that
	// parses the head, as HTTP/1.1 text).
	Rendered bool
	// Request is the request as written: request line, header fields and
	// the empty line.
	Request []byte
	// Reply is the final reply's head as read: status line, header
	// fields and the empty line (an interim 1xx reply's is not kept).
	Reply []byte
}
