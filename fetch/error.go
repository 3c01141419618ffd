package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"strings"
)

// Kind classifies a failure. Each Kind is also an error value, so that
// errors.Is(err, fetch.NotFound) reports whether err is of that kind.
//
// Kinds are classes of failure, not exit codes: a program maps them to
// whatever it reports (the fetch command has its own table).
type Kind int

// The kinds of failure.
const (
	Other       Kind = 1  // a failure not covered below
	Usage       Kind = 2  // the caller asked for something malformed
	Malformed   Kind = 3  // the URL does not parse
	Unsupported Kind = 4  // scheme or operation not supported
	Connect     Kind = 5  // the host could not be resolved or reached
	Auth        Kind = 6  // login or authentication refused
	NotFound    Kind = 7  // the resource does not exist
	Protocol    Kind = 8  // an unexpected or malformed reply
	Incomplete  Kind = 9  // the connection ended before the resource did
	Timeout     Kind = 10 // a deadline passed
	Refused     Kind = 11 // refused by the safety policy
	NotModified Kind = 12 // a conditional fetch found the resource unchanged; no body was moved
	Unavailable Kind = 13 // the server refused for now (HTTP 429/503, FTP 421/450, NNTP 400); see RetryAfter
	Canceled    Kind = 14 // the context was canceled
	TooLarge    Kind = 15 // the resource is larger than the caller allows (see LimitSize)
)

var kindNames = map[Kind]string{
	Other:       "failed",
	Usage:       "usage error",
	Malformed:   "malformed URL",
	Unsupported: "not supported",
	Connect:     "cannot connect",
	Auth:        "authentication refused",
	NotFound:    "not found",
	Protocol:    "protocol error",
	Incomplete:  "transfer incomplete",
	Timeout:     "timeout",
	Refused:     "refused by safety policy",
	NotModified: "not modified",
	Unavailable: "service unavailable",
	Canceled:    "canceled",
	TooLarge:    "too large",
}

// Error returns the kind's short description, such as "not found".
func (k Kind) Error() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind %d", int(k))
}

// Error is a failure to fetch one URL. Handlers return it with Kind and Err
// set (see Errorf, Wrap and Reply); the Client fills in Op and URL once, at
// its edge. URL never shows a password.
type Error struct {
	Op   string // "fetch", "list", "plan", "read", "close", ...
	URL  string // the URL with its password redacted
	Kind Kind
	Err  error
}

// Error formats the failure as "URL: kind: cause". An Op other than
// "fetch" precedes the URL ("read URL: ...") to say when the failure
// happened. An error is one line: line breaks become spaces, and the rest
// is passed through Sanitize, so server text in a cause cannot act on a
// terminal.
func (e *Error) Error() string {
	msg := e.Kind.Error()
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	switch {
	case e.URL == "":
	case e.Op != "" && e.Op != "fetch":
		msg = e.Op + " " + e.URL + ": " + msg
	default:
		msg = e.URL + ": " + msg
	}
	return Sanitize(oneLine.Replace(msg))
}

var oneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the Error's Kind.
func (e *Error) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && k == e.Kind
}

// Errorf returns an *Error of the given kind whose cause is
// fmt.Errorf(format, args...), so %w works as usual.
func Errorf(kind Kind, format string, args ...any) error {
	return &Error{Kind: kind, Err: fmt.Errorf(format, args...)}
}

// Wrap returns err as an *Error of the given kind. It returns nil for a nil
// err, and err itself when it already is an *Error of some kind.
func Wrap(kind Kind, err error) error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	return &Error{Kind: kind, Err: err}
}

// KindOf classifies err. A canceled context (context.Canceled anywhere in
// the chain) is always Canceled, whatever was being done when it happened;
// otherwise it is the Kind of an *Error in the chain, else a kind inferred
// from well-known causes (deadlines, dial failures, a cut connection, a
// malformed reply), else Other. It returns 0 for nil.
func KindOf(err error) Kind {
	if err == nil {
		return 0
	}
	if errors.Is(err, context.Canceled) {
		return Canceled
	}
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Kind
	}
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	var pe textproto.ProtocolError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return Timeout
	case errors.As(err, &ne) && ne.Timeout():
		return Timeout
	case errors.As(err, &de):
		return Connect
	case errors.As(err, &oe) && oe.Op == "dial":
		return Connect
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return Incomplete
	case errors.As(err, &pe):
		return Protocol
	}
	return Other
}

// Classify returns err as an *Error whose Kind is KindOf(err). It is what a
// handler calls on an error it did not classify itself.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	return Wrap(KindOf(err), err)
}
