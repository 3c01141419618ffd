package http

// Keys of fetch.Resource.Extra that this package sets, for display by a
// metadata-only fetch.
const (
	ExtraTotalSize = "http-total-size" // the whole resource's size when a range was sent
)
