// Package mailto implements the mailto scheme of RFC 1738 §3.5:
// mailto:<rfc822-addr-spec> designates an Internet mail address, not a data
// object. Given a message, Fetch sends it to that address through an SMTP
// relay (RFC 5321), using STARTTLS and AUTH when the relay offers them;
// without one, it fails with Kind Unsupported, for there is nothing to
// retrieve.
package mailto

import (
	"context"
	"crypto/tls"
	"errors"
	"net/mail"
	"os"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

// Handler sends messages to the addresses of mailto URLs. The zero Handler
// uses the relay named by $FETCH_SMTP.
type Handler struct {
	// Relay is the SMTP relay: "host", "host:port",
	// "smtp://[user[:password]@]host[:port]", or "smtps://..." for TLS from
	// the first byte. The default port is 25 (465 for smtps). "" means
	// $FETCH_SMTP; when both are empty, sending fails with Kind Usage.
	Relay string
	// From is the envelope sender (MAIL FROM). "" means the address in the
	// message's From field, else $USER@<Hello>.
	From string
	// Hello is the name given in EHLO. "" means this machine's host name,
	// else "localhost".
	Hello string
}

var (
	_ fetch.Handler = (*Handler)(nil)
	_ fetch.Planner = (*Handler)(nil)
)

// ErrNoRelay is the cause of the failure to send when no SMTP relay is
// configured: neither Handler.Relay nor the FETCH_SMTP environment
// variable.
var ErrNoRelay = errors.New("no SMTP relay to send through (Handler.Relay or the FETCH_SMTP environment variable)")

// noObject is the refusal for a mailto URL fetched without a message.
const noObject = "mailto designates an address, not a data object (RFC 1738 §3.5)"

// Address returns the RFC 822 addr-spec a mailto URL designates, decoded
// and validated, or an error of Kind Malformed (or Refused for a CR, LF or
// NUL). An address holding '<' or '>' (possible in a quoted local part) is
// refused as Malformed: it could end the address early in RCPT TO.
func Address(u *url.URL) (string, error) {
	a := u.Mailto().Address
	if strings.ContainsAny(a, "\r\n\x00") {
		return "", fetch.Errorf(fetch.Refused, "the address holds a decoded CR, LF or NUL (RFC 1738 §6)")
	}
	p, err := (&mail.AddressParser{}).Parse(a)
	if err != nil {
		return "", fetch.Errorf(fetch.Malformed, "%q is not an RFC 822 address: %v", a, err)
	}
	if p.Name != "" || strings.HasPrefix(strings.TrimSpace(a), "<") {
		return "", fetch.Errorf(fetch.Malformed, "%q is not a bare addr-spec (RFC 1738 §3.5): write mailto:%s", a, url.Escape(p.Address, ";/?:@&="))
	}
	// Address holds the local part unquoted; String quotes it again
	// where RFC 5322 needs quotes ("joe q"@example.com).
	addr := strings.TrimSuffix(strings.TrimPrefix(p.String(), "<"), ">")
	if strings.ContainsAny(addr, "<>") {
		// Valid in a quoted local part, but a relay that cuts RCPT TO:<...>
		// at the first '>' would read the rest as parameters.
		return "", fetch.Errorf(fetch.Malformed, "the address %q holds a '<' or '>', which a relay may take for the end of the address", addr)
	}
	return addr, nil
}

// hello returns the EHLO name.
func (h *Handler) hello() string {
	if h.Hello != "" {
		return h.Hello
	}
	if n, err := os.Hostname(); err == nil && n != "" && !strings.ContainsAny(n, " \r\n") {
		return n
	}
	return "localhost"
}

// sender returns the envelope sender for message m.
func (h *Handler) sender(m *message) string {
	switch {
	case h.From != "":
		return h.From
	case m != nil && m.from != "":
		return m.from
	}
	user := os.Getenv("USER")
	if user == "" {
		user = "fetch"
	}
	return user + "@" + h.hello()
}

// prepared is what both Plan and Fetch work out before any connection.
type prepared struct {
	to, from string
	msg      *message
}

func (h *Handler) prepare(req *fetch.Request) (*prepared, error) {
	to, err := Address(req.URL)
	if err != nil {
		return nil, err
	}
	if req.Message == nil {
		return nil, fetch.Errorf(fetch.Unsupported, "%s", noObject)
	}
	m, err := readMessage(req.Message)
	if err != nil {
		return nil, err
	}
	p := &prepared{to: to, msg: m, from: h.sender(m)}
	if strings.ContainsAny(p.from, "\r\n\x00<>") {
		return nil, fetch.Errorf(fetch.Usage, "the sender %q is not a bare address", p.from)
	}
	return p, nil
}

// Plan returns the SMTP commands a fetch would send. STARTTLS and AUTH come
// in addition when the relay offers them, and MAIL FROM then carries
// BODY=8BITMIME (and SMTPUTF8 for a non-ASCII address) when it offers
// those. It reads the message's header, to find the sender.
func (h *Handler) Plan(req *fetch.Request) ([]string, error) {
	p, err := h.prepare(req)
	if err != nil {
		return nil, err
	}
	return []string{"EHLO " + h.hello(), "MAIL FROM:<" + p.from + ">", "RCPT TO:<" + p.to + ">", "DATA", ".", "QUIT"}, nil
}

// Fetch sends req.Message to the URL's address through the relay, adding
// To, From, Date and Message-ID fields when the message lacks them, and
// returns a receipt of Kind fetch.ResourceMessage with an empty Body; its Extra
// holds "address", "message-id", "relay" and "reply" (the relay's final
// reply). With req.Head it sends nothing and returns the address only.
// Without a message it fails with Kind Unsupported. The relay's
// credentials come from its URL, else the request's User.
func (h *Handler) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	res := &fetch.Resource{URL: req.URL, Kind: fetch.ResourceMessage, Size: 0, Body: fetch.NoBody, Extra: map[string]string{}}
	if req.Head {
		to, err := Address(req.URL)
		if err != nil {
			return nil, err
		}
		res.Extra[ExtraAddress] = to
		return res, nil
	}
	p, err := h.prepare(req)
	if err != nil {
		return nil, err
	}
	setting := h.relaySetting()
	if setting == "" {
		return nil, &fetch.Error{Kind: fetch.Usage, Err: ErrNoRelay}
	}
	rl, err := parseRelay(setting)
	if err != nil {
		return nil, err
	}
	creds := rl.user
	if creds == nil {
		creds = req.User
	}
	domain := h.hello()
	if _, d, ok := strings.Cut(p.from, "@"); ok && d != "" {
		domain = d
	}
	p.msg.complete(p.to, p.from, domain, time.Now())

	reply, err := h.send(ctx, req, rl, creds, p)
	if err != nil {
		return nil, err
	}
	res.Extra[ExtraAddress] = p.to
	res.Extra[ExtraMessageID] = p.msg.msgID
	res.Extra[ExtraRelay] = rl.addr()
	res.Extra[ExtraReply] = reply
	return res, nil
}

// send holds the SMTP conversation and returns the relay's final reply.
func (h *Handler) send(ctx context.Context, req *fetch.Request, rl relay, creds *url.Userinfo, p *prepared) (string, error) {
	conn, err := wire.Dial(ctx, req, "tcp", rl.addr())
	if err != nil {
		return "", err
	}
	stop := conn.Watch(ctx)
	defer stop()
	tlsConfig := &tls.Config{}
	if req.TLS != nil {
		tlsConfig = req.TLS.Clone()
	}
	if tlsConfig.ServerName == "" {
		tlsConfig.ServerName = rl.host
	}
	c := newClient(conn, false, req.Trace, req.EffectiveIdleTimeout())
	defer func() { c.conn.Close() }()
	if rl.implicit {
		tc := tls.Client(conn, tlsConfig)
		if err := tc.HandshakeContext(ctx); err != nil {
			return "", fetch.Errorf(fetch.Connect, "TLS with the relay: %w", err)
		}
		c = newClient(tc, true, req.Trace, req.EffectiveIdleTimeout())
	}
	if _, _, err := c.reply(220); err != nil {
		return "", classify(err, "the greeting")
	}
	if err := c.hello(h.hello()); err != nil {
		return "", classify(err, "EHLO")
	}
	if _, ok := c.ext["STARTTLS"]; ok && !c.tls {
		if err := c.startTLS(ctx, tlsConfig); err != nil {
			return "", classify(err, "STARTTLS")
		}
		if err := c.hello(h.hello()); err != nil {
			return "", classify(err, "EHLO")
		}
	}
	if creds != nil {
		if _, ok := c.ext["AUTH"]; ok {
			if err := c.auth(creds, rl.host); err != nil {
				return "", classify(err, "AUTH")
			}
		} else {
			req.Trace.Notef("the relay offers no AUTH: sending without credentials")
		}
	}
	mail := "MAIL FROM:<" + p.from + ">"
	if _, ok := c.ext["8BITMIME"]; ok {
		mail += " BODY=8BITMIME" // the message may hold 8-bit text; it is not inspected
	}
	if _, ok := c.ext["SMTPUTF8"]; ok && (!ascii(p.from) || !ascii(p.to)) {
		mail += " SMTPUTF8"
	}
	if _, _, err := c.cmd(250, "", mail); err != nil {
		return "", classify(err, "MAIL")
	}
	if _, _, err := c.cmd(25, "", "RCPT TO:<"+p.to+">"); err != nil {
		return "", classify(err, "RCPT")
	}
	reply, err := c.data(p.msg)
	if err != nil {
		return "", classify(err, "DATA")
	}
	c.quit()
	return reply, nil
}

// ascii reports whether s is all ASCII.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
