package fetchtest

import (
	"io"

	"github.com/rfc1738/fetch/fetch"
)

// Entries reads l to its end and closes it. It returns the entries read
// and the error, other than io.EOF, that ended the listing, if any; the
// entries before a failure are returned with it. l.Skipped still counts
// the items that could not be parsed.
func Entries(l *fetch.Listing) ([]fetch.Entry, error) {
	defer l.Close()
	var es []fetch.Entry
	for {
		e, err := l.Next()
		if err == io.EOF {
			return es, nil
		}
		if err != nil {
			return es, err
		}
		es = append(es, e)
	}
}
