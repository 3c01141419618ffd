package queue

import "github.com/rfc1738/fetch/url"

// normalize returns the text by which two URLs are the same job: the
// normalized URL (url.URL.Normalize), so that HTTP://Host:80/a and
// http://host/a are one job, stored once.
func normalize(u *url.URL) string { return u.Normalize().String() }
