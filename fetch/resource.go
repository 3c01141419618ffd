package fetch

import (
	"io"
	"net/http"
	"time"

	"github.com/rfc1738/fetch/url"
)

// ResourceKind says what a Resource's body holds.
type ResourceKind int

// The kinds of resource.
const (
	ResourceFile      ResourceKind = iota // a data object's bytes
	ResourceDirectory                     // a directory listing, one name a line
	ResourceMenu                          // a menu (gopher), as the server sent it
	ResourceArticle                       // a news article: headers, blank line, body
	ResourceList                          // a list of items: groups, overview lines, search hits
	ResourceSession                       // an interactive session (telnet): Body is also an io.Writer
	ResourceMessage                       // a receipt for a message sent (mailto)
)

var resourceKindNames = [...]string{"file", "directory", "menu", "article", "list", "session", "message"}

// String returns the kind's name as printed by "fetch -I": "file",
// "directory", "menu", "article", "list", "session" or "message".
func (k ResourceKind) String() string {
	if int(k) >= 0 && int(k) < len(resourceKindNames) {
		return resourceKindNames[k]
	}
	return "unknown"
}

// Resource is what a successful fetch returns: metadata, and the body as a
// stream. The caller must close Body; Close finishes the protocol (reads an
// FTP 226, drains an NNTP "." line) and is safe to call more than once. When
// the stream ends before the resource did, Read returns an error of Kind
// Incomplete, never io.EOF.
type Resource struct {
	// URL is the URL finally fetched (after redirects).
	URL *url.URL
	// Redirect, when not nil, makes this Resource a redirect or a
	// referral: the server's word that what URL names is to be fetched at
	// Redirect instead (an HTTP 3xx reply with a Location, a Prospero
	// FORWARDED reply or AFTP access method). A Handler reports such a
	// reply this way and does not follow it; the Client follows it (see
	// Client.CheckRedirect and Client.MaxRedirects). Body holds the
	// reply's own body, if any.
	Redirect *url.URL
	// Via holds the redirects and referrals the Client followed on the
	// way to this resource, the first first, each with its Redirect, URL,
	// Status and Header; their bodies are closed (Body is NoBody), but
	// for a request that asked for captures (Request.Capture): a body
	// that came whole within MaxHopBody bytes is then kept in memory in
	// Body. It is nil when the first request was answered directly.
	Via []*Resource
	// Capture holds the heads of the exchange as they went over the
	// connection, when the Request asked for them (Request.Capture) and
	// the handler keeps them; nil otherwise. A hop in Via has its own.
	Capture *Capture
	// FromPublic reports that a connection this fetch used, or one a hop
	// on its way used, went to a public address (one Policy.DenyPrivate
	// would not refuse). A link found in the resource leads from a public
	// place: see Request.FromPublic. The Client sets it.
	FromPublic bool
	// Kind says what Body holds.
	Kind ResourceKind
	// MediaType is the MIME type with its parameters (charset kept), as
	// the protocol states it, or as guessed from the name when
	// MediaTypeGuessed is set; "" when unknown.
	MediaType string
	// MediaTypeGuessed reports that MediaType was guessed from a file
	// name or a gopher item type rather than stated by the server.
	MediaTypeGuessed bool
	// Status is the reply's numeric status where the protocol has one
	// (HTTP status, FTP, NNTP or SMTP reply code), else 0.
	Status int
	// Header holds the protocol's header fields: HTTP response headers,
	// an article's headers, Gopher+ attributes where fetched. Nil when
	// the protocol has none.
	Header http.Header
	// Size is the length of Body in bytes, or -1 when unknown.
	Size int64
	// ModTime is the modification time, or the zero Time when unknown.
	ModTime time.Time
	// Offset is where Body starts in the resource when a resume was honoured.
	Offset int64
	// Extra holds per-scheme metadata under the Extra... keys (such as
	// ftp.ExtraType: "I"), for display; nil when there is none.
	Extra map[string]string
	// Body streams the resource's bytes. It is never nil.
	Body io.ReadCloser
}

// NoBody is an empty Body for resources fetched for their metadata only.
var NoBody io.ReadCloser = noBody{}

type noBody struct{}

func (noBody) Read([]byte) (int, error) { return 0, io.EOF }
func (noBody) Close() error             { return nil }
