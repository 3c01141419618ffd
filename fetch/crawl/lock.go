package crawl

import "errors"

// errLocked is why a frontier's folder cannot be opened: another process
// (or another frontier of this one) has it open.
var errLocked = errors.New("the folder is in use by another crawl")
