package mailto

// Keys of fetch.Resource.Extra that this package sets, for display by a
// metadata-only fetch.
const (
	ExtraAddress   = "address"    // the recipient
	ExtraMessageID = "message-id" // the Message-ID of the message sent
	ExtraRelay     = "relay"      // the relay that took the message
	ExtraReply     = "reply"      // the relay's final reply
)
