package prospero

// Keys of fetch.Resource.Extra that this package sets, for display by a
// metadata-only fetch.
const (
	ExtraUnixModes     = "prospero-unix-modes"     // the object's Unix permission bits
	ExtraAccessMethod  = "prospero-access-method"  // the access method used
	ExtraAccessMethods = "prospero-access-methods" // the access methods the server offered
)
