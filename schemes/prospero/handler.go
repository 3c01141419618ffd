package prospero

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/url"
)

// Handler fetches prospero URLs. The zero Handler is ready to use; it
// delivers files with the PROSPERO-CONTENTS access method and directories,
// and refuses AFTP files until Follow is set.
type Handler struct {
	// Retransmit is how long to wait for a reply before re-sending the
	// request (or, part-way through a reply, the last ACK) until a round
	// trip has been measured; from then on the wait follows the measured
	// round trip as TCP's does (RFC 6298: SRTT + 4·RTTVAR, at least
	// 200 ms or Retransmit if less). The wait doubles after each re-send,
	// and the Request's IdleTimeout without a packet ends the try. When a
	// window's packets are in but its last (the one asking for an ACK),
	// the ACK is re-sent after an eighth of the wait. Zero means 4
	// seconds, the reference client's.
	Retransmit time.Duration
	// MaxForwards is how many FORWARDED replies one fetch follows. Zero
	// means 3; a negative value follows none.
	MaxForwards int
	// Follow fetches the URL of another scheme that an object's access
	// method names: an AFTP method becomes an ftp:// URL. schemes.Register
	// sets it to the Client's Do. Nil means such objects are Unsupported.
	Follow func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error)
	// Policy checks a server that a FORWARDED reply names before any
	// packet goes there; schemes.Register sets it to the Client's policy.
	// Nil means the default fetch.Policy.
	Policy func(u *url.URL) error
	// User is the name sent in the AUTHENTICATE line when the request has
	// no credentials. Empty means "anonymous". No password is ever sent:
	// RFC 1738 §3.11 allows none.
	User string
}

var (
	_ fetch.Handler = (*Handler)(nil)
	_ fetch.Planner = (*Handler)(nil)
)

func (h *Handler) maxForwards() int {
	switch {
	case h.MaxForwards < 0:
		return 0
	case h.MaxForwards == 0:
		return 3
	}
	return h.MaxForwards
}

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
// (Kind file), a directory's links as prospero URLs one a line (Kind
// directory), or, for an AFTP file, what Follow returns. With req.Head only
// the attributes are read. The Body owns the UDP socket; closing it ends
// the exchange.
func (h *Handler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	t, err := targetOf(req.URL)
	if err != nil {
		return nil, err
	}
	if req.URL.User != nil {
		req.Trace.Notef("prospero URLs carry no user name (RFC 1738 §3.11); ignoring it")
	}
	dreq := req // the request that dials: a hop's, after a referral
	for hop := 0; ; hop++ {
		s, err := h.dial(ctx, dreq, t)
		if err != nil {
			return nil, err
		}
		res, next, err := h.resolve(ctx, req, s, t)
		if next == nil {
			if err != nil {
				s.close()
				return nil, err
			}
			return res, nil
		}
		s.close()
		if hop >= h.maxForwards() {
			return nil, fetch.Errorf(fetch.Protocol, "forwarded more than %d times; last to %s", h.maxForwards(), urlOf(*next))
		}
		t = *next
		req.Trace.Notef("forwarded to %s", urlOf(t))
		u, err := url.Parse(urlOf(t))
		if err != nil {
			return nil, fetch.Errorf(fetch.Protocol, "FORWARDED names no valid URL: %v", err)
		}
		// A hop: the hop rule (public to private refused) applies when
		// it dials, and it carries no credentials.
		dreq = dreq.Follow(u)
	}
}

// dial opens the UDP socket to t's server and ties it to ctx.
func (h *Handler) dial(ctx context.Context, req *fetch.Request, t target) (*session, error) {
	c, err := req.Dial(ctx, "udp", t.server().HostPort())
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

// resolve asks for t's attributes and delivers the object. It returns a
// non-nil next when the server forwards the request elsewhere.
func (h *Handler) resolve(ctx context.Context, req *fetch.Request, s *session, t target) (*fetch.Resource, *target, error) {
	m, err := h.ask(s, req, infoLines(t))
	if err != nil {
		return nil, nil, err
	}
	m.bound(s.idle)
	inf, err := readInfo(m, req.Trace)
	if err != nil {
		return nil, nil, err
	}
	if f := inf.fwd; f != nil {
		next, err := h.forwardTarget(t, f)
		return nil, next, err
	}
	res := &fetch.Resource{URL: req.URL, Size: inf.size, ModTime: inf.modTime, Extra: map[string]string{}, Body: fetch.NoBody}
	if inf.modes != "" {
		res.Extra["prospero-unix-modes"] = inf.modes
	}
	if len(inf.methods) > 0 {
		res.Extra["prospero-access-methods"] = inf.methodNames()
	}
	switch {
	case len(inf.methods) == 0:
		// A directory: dirsrv gives it no access method.
		res.Kind = fetch.KindDirectory
		res.Size = -1
		if req.Head {
			s.close()
			return res, nil, nil
		}
		body, err := h.list(s, req, t)
		if err != nil {
			return nil, nil, err
		}
		res.Body = body
		return res, nil, nil
	case inf.method("PROSPERO-CONTENTS") != nil:
		res.Kind = fetch.KindFile
		res.Extra["prospero-access-method"] = "PROSPERO-CONTENTS"
		if req.Head {
			s.close()
			return res, nil, nil
		}
		body, err := h.contents(s, req, t)
		if err != nil {
			return nil, nil, err
		}
		res.Body = body
		return res, nil, nil
	case inf.method("AFTP") != nil:
		s.close()
		res, err := h.followFTP(ctx, req, t, inf.method("AFTP"))
		return res, nil, err
	}
	if inf.method("LOCAL") != nil && len(inf.methods) == 1 {
		return nil, nil, fetch.Errorf(fetch.Unsupported, "the object is reachable only through the server's own file system (access method LOCAL)")
	}
	return nil, nil, fetch.Errorf(fetch.Unsupported, "no supported access method among %s", inf.methodNames())
}

// forwardTarget returns where a FORWARDED reply sends the request, after
// the safety policy's checks.
func (h *Handler) forwardTarget(from target, f *forward) (*target, error) {
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
	check := h.Policy
	if check == nil {
		check = fetch.Policy{}.Check
	}
	if err := check(u); err != nil {
		return nil, err
	}
	return &next, nil
}
