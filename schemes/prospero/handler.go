package prospero

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

// Handler fetches prospero URLs. The zero Handler is ready to use; it
// delivers files with the PROSPERO-CONTENTS access method and directories,
// and reports FORWARDED replies and AFTP files as referrals for the
// fetch.Client to follow.
type Handler struct {
	// Retransmit is how long to wait for a reply before re-sending the
	// request (or, part-way through a reply, the last ACK) until a round
	// trip has been measured; from then on the wait follows the measured
	// round trip as TCP's does (RFC 6298: SRTT + 4·RTTVAR, at least
	// 1 s or Retransmit if less). The wait doubles after each re-send,
	// and the Request's IdleTimeout without a packet ends the try. When a
	// window's packets are in but its last (the one asking for an ACK),
	// the ACK is re-sent after an eighth of the wait. Zero means 4
	// seconds, the reference client's.
	Retransmit time.Duration
	// User is the name sent in the AUTHENTICATE line when the request has
	// no credentials. Empty means "anonymous". No password is ever sent:
	// RFC 1738 §3.11 allows none.
	User string
}

var (
	_ fetch.Handler = (*Handler)(nil)
	_ fetch.Planner = (*Handler)(nil)
)

// preamble is the start of every request: the protocol version, and the
// client's unauthenticated identity: the request's User (-u) or h.User.
// A user in the URL is not used, for RFC 1738 §3.11 allows none.
func (h *Handler) preamble(req *fetch.Request) []string {
	user := h.User
	if c := req.User; c != nil && c.Username != "" {
		user = c.Username
	}
	if user == "" {
		user = "anonymous"
	}
	return []string{"VERSION 5", "AUTHENTICATE '' UNAUTHENTICATED " + quote(user)}
}

// infoLines asks for all of an object's attributes.
func infoLines(t target) []string {
	return []string{"GET-OBJECT-INFO #ALL ASCII " + quote(t.hsoname) + " " + t.version}
}

// contentsLines asks for a file's bytes.
func contentsLines(t target) []string {
	l := "GET-OBJECT-INFO CONTENTS ASCII " + quote(t.hsoname)
	if t.version != "0" {
		l += " " + t.version
	}
	return []string{l}
}

// listLines asks for a directory's links.
func listLines(t target) []string {
	return []string{"DIRECTORY ASCII " + quote(t.hsoname), "LIST '' COMPONENTS"}
}

// Plan returns the lines of the first request Fetch sends: the preamble
// and GET-OBJECT-INFO #ALL. What follows depends on the answer: GET-OBJECT-INFO
// CONTENTS for a file, DIRECTORY and LIST for a directory.
func (h *Handler) Plan(req *fetch.Request) ([]string, error) {
	t, err := targetOf(req.URL)
	if err != nil {
		return nil, err
	}
	return append(h.preamble(req), infoLines(t)...), nil
}

// Fetch resolves the object the URL names and delivers it: a file's bytes
// (Kind file), or a directory's links as prospero URLs one a line (Kind
// directory). A FORWARDED reply, and an AFTP file, are referrals: the
// Resource's Redirect is the prospero URL the server forwards to, or the
// ftp URL the access method names, for the fetch.Client to follow. With
// req.Head only the attributes are read. The Body owns the UDP socket;
// closing it ends the exchange.
func (h *Handler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	t, err := targetOf(req.URL)
	if err != nil {
		return nil, err
	}
	if req.URL.User != nil {
		req.Trace.Notef("prospero URLs carry no user name (RFC 1738 §3.11); ignoring it")
	}
	s, err := h.dial(ctx, req, t)
	if err != nil {
		return nil, err
	}
	res, err := h.resolve(ctx, req, s, t)
	if err != nil {
		s.close()
		return nil, err
	}
	return res, nil
}

// dial opens the UDP socket to t's server and ties it to ctx.
func (h *Handler) dial(ctx context.Context, req *fetch.Request, t target) (*session, error) {
	c, err := wire.Dial(ctx, req, "udp", t.server().HostPort())
	if err != nil {
		return nil, err
	}
	var b [2]byte
	rand.Read(b[:])
	return newSession(ctx, c.Conn, req.Trace, h.Retransmit, req.EffectiveIdleTimeout(), binary.BigEndian.Uint16(b[:])), nil
}

// ask sends one request and returns its reply stream.
func (h *Handler) ask(s *session, req *fetch.Request, lines []string) (*message, error) {
	var b strings.Builder
	for _, l := range append(h.preamble(req), lines...) {
		// RFC 1738 §6, again at the point of writing: a line is one line.
		if strings.ContainsAny(l, "\r\n\x00") {
			return nil, fetch.Errorf(fetch.Refused, "a request line would hold a CR, LF or NUL (RFC 1738 §6)")
		}
		req.Trace.Send(l)
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return s.request([]byte(b.String()))
}

// resolve asks for t's attributes and delivers the object, or the
// referral the server or the object's access method makes.
func (h *Handler) resolve(ctx context.Context, req *fetch.Request, s *session, t target) (*fetch.Resource, error) {
	m, err := h.ask(s, req, infoLines(t))
	if err != nil {
		return nil, err
	}
	m.bound(s.idle)
	inf, err := readInfo(m, req.Trace)
	if err != nil {
		return nil, err
	}
	if f := inf.fwd; f != nil {
		s.close()
		next, err := h.forwardTarget(t, f)
		if err != nil {
			return nil, err
		}
		req.Trace.Notef("forwarded to %s", next.Redacted())
		return &fetch.Resource{URL: req.URL, Redirect: next, Kind: fetch.ResourceFile, Size: -1, Body: fetch.NoBody}, nil
	}
	res := &fetch.Resource{URL: req.URL, Size: inf.size, ModTime: inf.modTime, Extra: map[string]string{}, Body: fetch.NoBody}
	if inf.modes != "" {
		res.Extra[ExtraUnixModes] = inf.modes
	}
	if len(inf.methods) > 0 {
		res.Extra[ExtraAccessMethods] = inf.methodNames()
	}
	switch {
	case len(inf.methods) == 0:
		// A directory: dirsrv gives it no access method.
		res.Kind = fetch.ResourceDirectory
		res.Size = -1
		if req.Head {
			s.close()
			return res, nil
		}
		body, err := h.list(s, req, t)
		if err != nil {
			return nil, err
		}
		res.Body = body
		return res, nil
	case inf.method("PROSPERO-CONTENTS") != nil:
		res.Kind = fetch.ResourceFile
		res.Extra[ExtraAccessMethod] = "PROSPERO-CONTENTS"
		if req.Head {
			s.close()
			return res, nil
		}
		body, err := h.contents(s, req, t)
		if err != nil {
			return nil, err
		}
		res.Body = body
		return res, nil
	case inf.method("AFTP") != nil:
		s.close()
		next, err := aftpURL(t, inf.method("AFTP"))
		if err != nil {
			return nil, err
		}
		req.Trace.Notef("access method AFTP: the object is at %s", next.Redacted())
		res.Redirect, res.Kind = next, fetch.ResourceFile
		return res, nil
	}
	if inf.method("LOCAL") != nil && len(inf.methods) == 1 {
		return nil, fetch.Errorf(fetch.Unsupported, "the object is reachable only through the server's own file system (access method LOCAL)")
	}
	return nil, fetch.Errorf(fetch.Unsupported, "no supported access method among %s", inf.methodNames())
}

// forwardTarget returns the URL a FORWARDED reply sends the request to.
// The Client judges it by its Policy before any packet goes there.
func (h *Handler) forwardTarget(from target, f *forward) (*url.URL, error) {
	if f.hostType != "INTERNET-D" || f.hsonameType != "ASCII" {
		return nil, fetch.Errorf(fetch.Unsupported, "forwarded to a %s host or %s name", f.hostType, f.hsonameType)
	}
	host, port, ok := resolveServer(from, f.host)
	if !ok {
		return nil, fetch.Errorf(fetch.Protocol, "FORWARDED names a malformed host %q", f.host)
	}
	next := target{host: host, port: port, hsoname: f.hsoname, version: f.version}
	if err := next.check(); err != nil {
		return nil, err
	}
	u, err := url.Parse(urlOf(next))
	if err != nil {
		return nil, fetch.Errorf(fetch.Protocol, "FORWARDED names no valid URL: %v", err)
	}
	return u, nil
}
