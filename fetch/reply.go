package fetch

import (
	"errors"
	"strconv"
	"time"
)

// ReplyError is a failure a server stated: an HTTP status, an FTP, NNTP or
// SMTP reply code, or the text of a gopher error item (Code 0). Handlers
// return it inside an *Error (see Reply), so that
//
//	var re *fetch.ReplyError
//	if errors.As(err, &re) { ... re.Code ... }
//
// works on every failure a reply caused.
type ReplyError struct {
	Code int    // the reply's numeric code; 0 where the protocol has none
	Text string // the reply's text as the server sent it (see Sanitize before printing it)
	// RetryAfter is how long the server asked the client to wait before
	// trying again (HTTP Retry-After); zero when it did not say.
	RetryAfter time.Duration
	// Transient marks a reply that says the failure may pass, whatever
	// its Kind: HTTP 500 and 502 (and 408, 429, 503, 504, whose Kinds
	// say so already), as curl's --retry counts them. Transient reports
	// it.
	Transient bool
}

// Error returns the code and the text, with control characters escaped.
func (e *ReplyError) Error() string {
	if e.Code == 0 {
		return Sanitize(e.Text)
	}
	if e.Text == "" {
		return strconv.Itoa(e.Code)
	}
	return strconv.Itoa(e.Code) + " " + Sanitize(e.Text)
}

// Reply returns the failure a server's reply means: an *Error of the given
// kind whose cause is a *ReplyError holding code and text.
func Reply(kind Kind, code int, text string) error {
	return &Error{Kind: kind, Err: &ReplyError{Code: code, Text: text}}
}

// RetryAfter returns how long the server that caused err asked the client
// to wait before trying again, and whether it said.
func RetryAfter(err error) (time.Duration, bool) {
	var re *ReplyError
	if errors.As(err, &re) && re.RetryAfter > 0 {
		return re.RetryAfter, true
	}
	return 0, false
}
