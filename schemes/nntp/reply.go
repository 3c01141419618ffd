package nntp

import (
	"fmt"
	"strings"

	"github.com/rfc1738/fetch/fetch"
)

// maxReplyLine bounds a status line and each line of a short multi-line
// answer (CAPABILITIES, HEAD). RFC 3977 §3.1 caps reply lines at 512
// octets; the bound leaves room for servers that exceed it a little.
const maxReplyLine = 4096

// reply is one status line: a three-digit code and the server's text.
type reply struct {
	Code int
	Text string
}

func (r reply) String() string {
	if r.Text == "" {
		return fmt.Sprintf("%03d", r.Code)
	}
	return fmt.Sprintf("%03d %s", r.Code, r.Text)
}

// parseReply splits a status line ("211 3 1 3 local.test") into its code
// and text. A line that does not begin with three digits followed by a
// space or its end is a protocol error.
func parseReply(line string) (reply, error) {
	if len(line) < 3 || (len(line) > 3 && line[3] != ' ') {
		return reply{}, fetch.Errorf(fetch.Protocol, "malformed reply %q", clip(line))
	}
	code := 0
	for _, c := range []byte(line[:3]) {
		if c < '0' || c > '9' {
			return reply{}, fetch.Errorf(fetch.Protocol, "malformed reply %q", clip(line))
		}
		code = code*10 + int(c-'0')
	}
	if code < 100 {
		return reply{}, fetch.Errorf(fetch.Protocol, "malformed reply %q", clip(line))
	}
	text := ""
	if len(line) > 4 {
		text = line[4:]
	}
	return reply{Code: code, Text: text}, nil
}

// replyError classifies a reply that the command did not expect
// (RFC 3977 §3.2): no such group or article → NotFound; authentication
// required, rejected or access denied → Auth; 400 (service not available,
// now) → Unavailable; anything else → Protocol. The error carries the
// command (passwords masked) and wraps the reply as a *fetch.ReplyError.
func replyError(cmd string, r reply) error {
	kind := fetch.Protocol
	what := "unexpected reply"
	switch r.Code {
	case 411:
		kind, what = fetch.NotFound, "no such newsgroup"
	case 420:
		kind, what = fetch.NotFound, "no current article"
	case 423:
		kind, what = fetch.NotFound, "no article with that number"
	case 430:
		kind, what = fetch.NotFound, "no article with that message-id"
	case 480:
		kind, what = fetch.Auth, "authentication required"
	case 481:
		kind, what = fetch.Auth, "authentication failed"
	case 482:
		kind, what = fetch.Auth, "authentication commands out of sequence"
	case 483:
		kind, what = fetch.Auth, "the server requires encryption (try nntps:// or snews:)"
	case 502:
		kind, what = fetch.Auth, "access denied"
	case 400:
		kind, what = fetch.Unavailable, "service not available"
	}
	return &fetch.Error{Kind: kind, Err: fmt.Errorf("%s: %s: %w", cmd, what, &fetch.ReplyError{Code: r.Code, Text: r.Text})}
}

// clip shortens a server's text for an error message and makes any control
// character visible.
func clip(s string) string {
	const max = 200
	if len(s) > max {
		s = s[:max] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}
