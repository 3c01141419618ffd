package wais

// Keys of fetch.Resource.Extra that this package sets, for display by a
// metadata-only fetch.
const (
	ExtraType = "wais-type" // the document type retrieved
	ExtraHits = "wais-hits" // the number of documents a search found
)
