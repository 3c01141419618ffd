package gopher

// Keys of fetch.Resource.Extra that this package sets, for display by a
// metadata-only fetch.
const (
	ExtraType = "gopher-type" // the item type character
	ExtraPlus = "gopher-plus" // the Gopher+ request string sent
)
