package ftp

// Keys of fetch.Resource.Extra that this package sets, for display by a
// metadata-only fetch.
const (
	ExtraType = "ftp-type" // the transfer type used, "A" or "I"
)
