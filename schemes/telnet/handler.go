// Package telnet implements the telnet scheme of RFC 1738 §3.8: a URL that
// designates an interactive service reached by the Telnet protocol
// (RFC 854), telnet://<user>:<password>@<host>:<port>/ with port 23 by
// default.
//
// Fetch opens a Session (an io.ReadWriteCloser) and returns it as the Body
// of a Resource of Kind fetch.ResourceSession. The URL's user and password are
// advisory only (§3.8): they are shown to the user through Handler.Advise
// and never typed unasked; Handler.Login types them at the server's login
// and password prompts. Interact runs a session on a terminal in raw mode,
// and Pipe runs one from a script's standard input.
package telnet

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

// DefaultLoginPrompt recognises a login prompt at the end of the output
// read so far, such as "login: " or "Username:".
const DefaultLoginPrompt = `(?i)(login|user ?name|user)\s*:\s*$`

// DefaultPasswordPrompt recognises a password prompt at the end of the
// output read so far, such as "Password: ".
const DefaultPasswordPrompt = `(?i)pass(word|phrase)?\s*:\s*$`

// Handler opens telnet sessions. The zero Handler is ready to use: it
// connects, handles option negotiation, and types nothing.
type Handler struct {
	// Login, when true, types the credentials (the URL's user and
	// password, else the request's User) when the server's login and
	// password prompts appear, each within the request's idle timeout.
	// Default false: RFC 1738 §3.8 makes them advisory only.
	Login bool
	// LoginPrompt is the regular expression (Go syntax) that recognises
	// the login prompt at the end of the output read so far. "" means
	// DefaultLoginPrompt.
	LoginPrompt string
	// PasswordPrompt is the regular expression that recognises the
	// password prompt. "" means DefaultPasswordPrompt.
	PasswordPrompt string
	// Advise, when non-nil, receives one line suggesting the login the
	// URL names ("telnet: log in as USER with password PASS", as §3.8
	// asks). Nil means no advice is printed. The CLI sets it to stderr.
	Advise io.Writer
	// Width and Height are the window size reported to a server that asks
	// for it (NAWS, RFC 1073). Zero means DefaultWidth×DefaultHeight; the
	// fetch command sets the size of the terminal it runs on.
	Width, Height int
}

var (
	_ fetch.Handler = (*Handler)(nil)
	_ fetch.Planner = (*Handler)(nil)
)

// check refuses a URL whose user or password holds a CR, LF or NUL
// (RFC 1738 §6), and a telnet URL with a path.
func check(u *url.URL, creds *url.Userinfo) error {
	if u.Path != "" {
		return fetch.Errorf(fetch.Malformed, "a telnet URL names no path (RFC 1738 §3.8)")
	}
	if creds != nil {
		if strings.ContainsAny(creds.Username, "\r\n\x00") {
			return fetch.Errorf(fetch.Refused, "the user name holds a decoded CR, LF or NUL (RFC 1738 §6)")
		}
		if strings.ContainsAny(creds.Password, "\r\n\x00") {
			return fetch.Errorf(fetch.Refused, "the password holds a decoded CR, LF or NUL (RFC 1738 §6)")
		}
	}
	return nil
}

// prompts compiles the login and password prompt patterns.
func (h *Handler) prompts() (login, password *regexp.Regexp, err error) {
	lp, pp := h.LoginPrompt, h.PasswordPrompt
	if lp == "" {
		lp = DefaultLoginPrompt
	}
	if pp == "" {
		pp = DefaultPasswordPrompt
	}
	if login, err = regexp.Compile(lp); err != nil {
		return nil, nil, fetch.Errorf(fetch.Usage, "login prompt pattern: %w", err)
	}
	if password, err = regexp.Compile(pp); err != nil {
		return nil, nil, fetch.Errorf(fetch.Usage, "password prompt pattern: %w", err)
	}
	return login, password, nil
}

// Plan returns the lines a fetch would type: none, unless Login is set and
// there are credentials, when they are the user and (as "****") the
// password.
func (h *Handler) Plan(req *fetch.Request) ([]string, error) {
	creds := req.Credentials()
	if err := check(req.URL, creds); err != nil {
		return nil, err
	}
	if _, _, err := h.prompts(); err != nil {
		return nil, err
	}
	lines := []string{}
	if h.Login && creds != nil {
		lines = append(lines, creds.Username)
		if creds.HasPassword {
			lines = append(lines, "****")
		}
	}
	return lines, nil
}

// Fetch opens a session with the URL's host. With req.Head it connects to
// nothing and returns the metadata only. The Body is a *Session; closing it
// ends the session.
func (h *Handler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	s, err := h.open(ctx, req)
	if err != nil {
		return nil, err
	}
	res := &fetch.Resource{URL: req.URL, Kind: fetch.ResourceSession, Size: -1, Body: fetch.NoBody}
	if s != nil {
		res.Body = s
	}
	return res, nil
}

// Open opens a session with the URL's host, as Fetch does, and returns it
// for a program to drive (Expect, Read, Write). The caller closes it. ctx
// bounds the whole session.
func (h *Handler) Open(ctx context.Context, req *fetch.Request) (*Session, error) {
	r := *req
	r.Head = false
	return h.open(ctx, &r)
}

func (h *Handler) open(ctx context.Context, req *fetch.Request) (*Session, error) {
	u := req.URL
	creds := req.Credentials()
	if err := check(u, creds); err != nil {
		return nil, err
	}
	loginRE, passRE, err := h.prompts()
	if err != nil {
		return nil, err
	}
	if u.User != nil {
		req.Trace.Notef("the URL suggests logging in as %q (RFC 1738 §3.8: advisory only)", u.User.Username)
		if h.Advise != nil {
			advice := fmt.Sprintf("telnet: log in as %s", u.User.Username)
			if u.User.HasPassword {
				advice += " with password " + u.User.Password
			}
			fmt.Fprintln(h.Advise, advice)
		}
	}
	if req.Head {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fetch.Classify(context.Cause(ctx))
	}
	conn, err := wire.Dial(ctx, req, "tcp", u.HostPort())
	if err != nil {
		return nil, err
	}
	w, ht := windowSize(h.Width, h.Height)
	s := newSession(ctx, conn.Conn, req.EffectiveIdleTimeout(), req.Trace, w, ht)
	if h.Login && creds != nil {
		if err := s.login(creds, loginRE, passRE, req.EffectiveIdleTimeout()); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}
