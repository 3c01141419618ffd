package fetch

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/rfc1738/fetch/url"
)

// Lister is implemented by handlers that can list a directory, a menu or
// a group as entries, parsed, rather than as the text the server sent.
// List follows the same rules as Handler.Fetch; the caller closes the
// Listing.
type Lister interface {
	List(ctx context.Context, req *Request) (*Listing, error)
}

// Entry is one item of a Listing.
type Entry struct {
	Name      string       // the name as displayed
	URL       *url.URL     // the item's own URL
	Kind      ResourceKind // what fetching URL returns: ResourceFile, ResourceDirectory, ResourceMenu, ...
	Size      int64        // the size in bytes, or -1 when unknown
	ModTime   time.Time    // the modification time, or the zero Time when unknown
	MediaType string       // the MIME type, or "" when unknown
	// NeedsQuery reports that fetching URL asks for words the URL does
	// not carry (a gopher search or CSO item as a menu lists it): a
	// program adds them, or asks for them, first. NewFS and the
	// RoundTripper's pages leave such entries out.
	NeedsQuery bool
	// FileName is the name the item has as a file when Name is a title
	// rather than a name (a gopher menu's display string, for an item
	// whose selector is a path): what NewFS calls the entry. Empty means
	// Name.
	FileName string
}

// ErrUnparsed is wrapped by the error a Listing's producer returns for an
// item it cannot parse; Listing.Next counts such items and goes on.
var ErrUnparsed = errors.New("unparsed listing item")

// Listing is a stream of entries, read with Next. It holds the connection
// it reads from until Close.
type Listing struct {
	next    func() (Entry, error)
	closer  io.Closer
	skipped int
	err     error

	closeOnce sync.Once
	closeErr  error
	// decorate, set by the Client, names the URL in errors.
	decorate func(op string, err error) error
	release  func()
	// redirect, set by RedirectListing, is the redirect or referral the
	// Listing stands for.
	redirect *Resource
}

// NewListing returns a Listing whose entries next produces, one per call,
// until it returns io.EOF (or another error, which ends the Listing). An
// error wrapping ErrUnparsed skips one item. closer, which may be nil, is
// closed by Close.
func NewListing(next func() (Entry, error), closer io.Closer) *Listing {
	return &Listing{next: next, closer: closer}
}

// Next returns the next entry, or io.EOF after the last. Items the
// producer could not parse are skipped and counted (see Skipped). An error
// other than io.EOF ends the listing: later calls return it again.
func (l *Listing) Next() (Entry, error) {
	for l.err == nil {
		e, err := l.next()
		switch {
		case err == nil:
			return e, nil
		case errors.Is(err, ErrUnparsed):
			l.skipped++
		default:
			if err != io.EOF && l.decorate != nil {
				err = l.decorate("read", err)
			}
			l.err = err
		}
	}
	return Entry{}, l.err
}

// Skipped returns how many items Next has skipped because they could not
// be parsed.
func (l *Listing) Skipped() int { return l.skipped }

// Close releases the listing's connection. It is safe to call more than
// once.
func (l *Listing) Close() error {
	l.closeOnce.Do(func() {
		if l.closer != nil {
			l.closeErr = l.closer.Close()
			if l.closeErr != nil && l.decorate != nil {
				l.closeErr = l.decorate("close", l.closeErr)
			}
		}
		if l.release != nil {
			l.release()
		}
	})
	return l.closeErr
}

// BodyLister is implemented by handlers that can read a listing from the
// bytes Fetch returned, so that a caller that keeps a resource and follows
// its entries (a crawler, a mirror) fetches it once rather than once more
// through Lister.
//
// ListBody returns the entries of res, a resource the handler's Fetch
// returned for req, read from body: res.Body itself, or a copy of its
// bytes as they are read (a tee). It makes no request. It returns an
// error of Kind Unsupported when res is not a listing it can read. The
// Listing does not close body; closing it ends the reading.
type BodyLister interface {
	ListBody(req *Request, res *Resource, body io.Reader) (*Listing, error)
}
