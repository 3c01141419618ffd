package queue

import "github.com/rfc1738/fetch/url"

// normalize returns the text by which two URLs are the same job.
func normalize(u *url.URL) string { return u.String() }
