package prospero

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

var _ fetch.Lister = (*Handler)(nil)

// List returns a directory's links as entries, in the server's order: the
// link's name, its prospero URL, and Kind directory or file as the link
// says. An object that is not a directory is Unsupported. The Listing
// holds the socket until Close.
func (h *Handler) List(ctx context.Context, req *fetch.Request) (*fetch.Listing, error) {
	r := *req
	r.Head = false
	res, err := h.Fetch(ctx, &r)
	if err != nil {
		return nil, err
	}
	b, ok := res.Body.(*listBody)
	if !ok {
		res.Body.Close()
		return nil, fetch.Errorf(fetch.Unsupported, "the object is not a directory")
	}
	return fetch.NewListing(b.nextEntry, b), nil
}

// nextEntry returns the next link as an entry, or io.EOF after the last.
func (b *listBody) nextEntry() (fetch.Entry, error) {
	if b.closed.Load() {
		return fetch.Entry{}, errClosed
	}
	if len(b.out) > 0 { // read ahead by list
		b.out = b.out[:0]
		return b.entry, nil
	}
	if b.err != nil {
		return fetch.Entry{}, b.err
	}
	if err := b.next(); err != nil {
		b.err = err
		return fetch.Entry{}, err
	}
	b.out = b.out[:0]
	return b.entry, nil
}

// list asks for a directory's links and returns them as a stream of
// prospero URLs, one a line, in the server's order. A FAILURE in the first
// line is returned as the error.
func (h *Handler) list(s *session, req *fetch.Request, t target) (io.ReadCloser, error) {
	m, err := h.ask(s, req, listLines(t))
	if err != nil {
		return nil, err
	}
	b := &listBody{s: s, br: bufio.NewReaderSize(m, 16<<10), trace: req.Trace, dir: t}
	// Read up to the first link, so that a failure is the fetch's error.
	if err := b.next(); err != nil && err != io.EOF {
		return nil, err
	} else if err == io.EOF {
		b.err = io.EOF
	}
	return b, nil
}

// listBody turns LINK lines into URL lines as they are read.
type listBody struct {
	s     *session
	br    *bufio.Reader
	trace *fetch.Trace
	dir   target
	out   []byte      // the current output line, not yet read
	entry fetch.Entry // the current link as an entry
	err   error
	lines int
	once  sync.Once
	// closed is set by Close, which a Read in another goroutine may
	// race with: Read checks it rather than sharing err.
	closed atomic.Bool
}

// next reads reply lines until one yields an output line, or the end.
func (b *listBody) next() error {
	for {
		line, err := readLine(b.br)
		if err != nil {
			if err == io.EOF {
				return io.EOF
			}
			return wrapReply(err)
		}
		b.trace.Recv(line)
		toks, err := tokenize(line)
		if err != nil {
			return wrapReply(err)
		}
		b.lines++
		if len(toks) == 0 {
			continue
		}
		switch toks[0] {
		case "LINK":
			if u, ok := b.linkURL(toks); ok {
				pu, err := url.Parse(u)
				if err != nil {
					b.trace.Notef("skipping a link whose URL does not parse: %s", truncate(line))
					continue
				}
				b.out = append(append(b.out[:0], u...), '\n')
				b.entry = fetch.Entry{Name: toks[3], URL: pu, Kind: fetch.ResourceFile, Size: -1}
				if toks[2] == "DIRECTORY" {
					b.entry.Kind = fetch.ResourceDirectory
				}
				return nil
			}
			b.trace.Notef("skipping a link this client cannot name as a URL: %s", truncate(line))
		case "VERSION", "WARNING", "ATTRIBUTE", "UNRESOLVED", "FILTER":
			// the server's version, advisories, or detail we did not ask for
		case "NONE-FOUND":
			// an empty directory
		case "FAILURE", "ERROR":
			return replyError(toks, "LIST")
		default:
			return fetch.Errorf(fetch.Protocol, "LIST: unexpected reply line %q", truncate(line))
		}
	}
}

// linkURL makes the URL of one LINK line, ending in "/" when the link
// is to a directory (the server takes the name with or without it):
//
//	LINK L|U <target> <name> <host-type> <host> <hsoname-type> <hsoname> <version> ...
func (b *listBody) linkURL(toks []string) (string, bool) {
	if len(toks) < 8 || toks[4] != "INTERNET-D" || toks[6] != "ASCII" {
		return "", false
	}
	host, port, ok := resolveServer(b.dir, toks[5])
	if !ok {
		return "", false
	}
	t := target{host: host, port: port, hsoname: toks[7], version: "0"}
	if len(toks) > 8 {
		t.version = toks[8]
	}
	if toks[2] == "DIRECTORY" && !strings.HasSuffix(t.hsoname, "/") {
		t.hsoname += "/"
	}
	return urlOf(t), true
}

// unwrap returns the handler's Body under the wrappers of r (the
// Client's, see fetch's body.Unwrap), or r.
func unwrap(r io.Reader) io.Reader {
	for range 8 {
		u, ok := r.(interface{ Unwrap() io.ReadCloser })
		if !ok {
			break
		}
		r = u.Unwrap()
	}
	return r
}

// WriteMenu renders the body of a directory that Handler.Fetch (or a
// Client's Do) returned for a person to read: one line per link, "name <url>",
// the name's control characters escaped, a directory's URL ending in "/"
// (so that following it lists it). Any other body is copied as it is. It
// returns the first error of the reply or of w; the caller closes body.
func WriteMenu(w io.Writer, body io.Reader) error {
	b, ok := unwrap(body).(*listBody)
	if !ok {
		_, err := io.Copy(w, body)
		return err
	}
	bw := bufio.NewWriter(w)
	for {
		e, err := b.nextEntry()
		if err == io.EOF {
			break
		}
		if err != nil {
			bw.Flush()
			return err
		}
		fmt.Fprintf(bw, "%s <%s>\n", fetch.Sanitize(e.Name), e.URL)
	}
	return bw.Flush()
}

// Read delivers the listing.
func (b *listBody) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, errClosed
	}
	n := 0
	for n < len(p) {
		if len(b.out) == 0 {
			if b.err != nil {
				break
			}
			if err := b.next(); err != nil {
				b.err = err
				continue
			}
		}
		c := copy(p[n:], b.out)
		b.out = b.out[c:]
		n += c
		if b.br.Buffered() == 0 && len(b.out) == 0 {
			break // do not wait for the network with bytes in hand
		}
	}
	if n > 0 {
		return n, nil
	}
	return 0, b.err
}

// Close ends the exchange and closes the socket; it is safe to call twice.
func (b *listBody) Close() error {
	b.once.Do(func() {
		b.closed.Store(true)
		b.s.close() // a Read waiting on the socket ends
	})
	return nil
}
