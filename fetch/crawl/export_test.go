package crawl

// NewSpillingFrontier is the memory frontier with bounds small enough
// that a test's few links go through its segment files in dir.
func NewSpillingFrontier(dir string) Frontier { return newMemFrontier(64, 256, 1024, dir) }
