package mailto

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

// maxReply bounds one SMTP reply, all its lines together.
const maxReply = 64 << 10

// client is one SMTP conversation (RFC 5321) with the relay, over
// net/textproto, tracing every command and reply.
type client struct {
	conn  net.Conn
	lim   *limitReader
	r     *textproto.Reader
	w     *textproto.Writer
	ext   map[string]string // EHLO keywords (upper case) and their parameters
	tls   bool
	trace *fetch.Trace
}

// limitReader fails a read once more than n bytes have been read, or the
// time is past end, since the last reset: the bounds on one reply, so that
// a reply dripped a byte at a time cannot last for ever.
type limitReader struct {
	r    io.Reader
	n    int
	idle time.Duration // the time one reply may take
	end  time.Time
}

// reset starts the bounds of a new reply.
func (l *limitReader) reset() {
	l.n = maxReply
	l.end = time.Now().Add(l.idle)
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, fetch.Errorf(fetch.Protocol, "an SMTP reply longer than %d bytes", maxReply)
	}
	if time.Now().After(l.end) {
		return 0, fetch.Errorf(fetch.Timeout, "an SMTP reply took longer than %v", l.idle)
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= n
	return n, err
}

// newClient starts a conversation on conn, each reply of which must come
// whole within idle.
func newClient(conn net.Conn, isTLS bool, trace *fetch.Trace, idle time.Duration) *client {
	c := &client{conn: conn, tls: isTLS, trace: trace}
	c.lim = &limitReader{r: conn, idle: idle}
	c.lim.reset()
	c.r = textproto.NewReader(bufio.NewReader(c.lim))
	c.w = textproto.NewWriter(bufio.NewWriter(conn))
	return c
}

// reply reads one reply, expecting a code of class want (as
// textproto.Reader.ReadResponse does: 2 for any 2xx, 250 exactly), and
// traces it.
func (c *client) reply(want int) (int, string, error) {
	c.lim.reset()
	code, msg, err := c.r.ReadResponse(want)
	if code != 0 {
		for _, l := range strings.Split(msg, "\n") {
			c.trace.Recv(fmt.Sprintf("%d %s", code, l))
		}
	}
	return code, msg, err
}

// cmd sends one command line, traced as shown (the line itself when shown
// is ""), and reads its reply.
func (c *client) cmd(want int, shown, line string) (int, string, error) {
	if strings.ContainsAny(line, "\r\n\x00") {
		return 0, "", fetch.Errorf(fetch.Refused, "an SMTP command would hold a CR, LF or NUL (RFC 1738 §6)")
	}
	if shown == "" {
		shown = line
	}
	c.trace.Send(shown)
	if err := c.w.PrintfLine("%s", line); err != nil {
		return 0, "", err
	}
	// A reply is awaited now: a relay that writes it in pieces with
	// Nagle's algorithm on waits for the first to be acknowledged.
	wire.QuickAck(c.conn)
	return c.reply(want)
}

// hello sends EHLO, falling back to HELO, and records the extensions.
func (c *client) hello(name string) error {
	_, msg, err := c.cmd(250, "", "EHLO "+name)
	if err != nil {
		var te *textproto.Error
		if !errors.As(err, &te) || te.Code/100 != 5 {
			return err
		}
		if _, _, err := c.cmd(250, "", "HELO "+name); err != nil {
			return err
		}
		c.ext = map[string]string{}
		return nil
	}
	c.ext = map[string]string{}
	lines := strings.Split(msg, "\n")
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, " ")
		c.ext[strings.ToUpper(k)] = v
	}
	return nil
}

// startTLS upgrades the connection after the relay agreed to STARTTLS.
func (c *client) startTLS(ctx context.Context, cfg *tls.Config) error {
	if _, _, err := c.cmd(220, "", "STARTTLS"); err != nil {
		return err
	}
	tc := tls.Client(c.conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return fetch.Errorf(fetch.Connect, "TLS with the relay: %w", err)
	}
	c.trace.Notef("TLS %s with %s", tls.VersionName(tc.ConnectionState().Version), cfg.ServerName)
	*c = *newClient(tc, true, c.trace, c.lim.idle)
	return nil
}

// auth authenticates with PLAIN, else LOGIN, whichever the relay offers.
// The credentials never appear in the trace.
func (c *client) auth(u *url.Userinfo, host string) error {
	if !c.tls && !isLocal(host) {
		return fetch.Errorf(fetch.Auth, "the relay offers no TLS: credentials are not sent in the clear")
	}
	mechs := strings.Fields(strings.ToUpper(c.ext["AUTH"]))
	has := func(m string) bool {
		for _, x := range mechs {
			if x == m {
				return true
			}
		}
		return false
	}
	b64 := base64.StdEncoding.EncodeToString
	switch {
	case has("PLAIN"):
		_, _, err := c.cmd(235, "AUTH PLAIN ****", "AUTH PLAIN "+b64([]byte("\x00"+u.Username+"\x00"+u.Password)))
		return err
	case has("LOGIN"):
		if _, _, err := c.cmd(334, "", "AUTH LOGIN"); err != nil {
			return err
		}
		if _, _, err := c.cmd(334, "****", b64([]byte(u.Username))); err != nil {
			return err
		}
		_, _, err := c.cmd(235, "****", b64([]byte(u.Password)))
		return err
	}
	return fetch.Errorf(fetch.Auth, "the relay offers neither AUTH PLAIN nor AUTH LOGIN (it offers %q)", c.ext["AUTH"])
}

func isLocal(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// data sends the message after DATA and returns the relay's final reply.
// When reading the message fails, the transfer is aborted without the
// final "." so that no truncated message is delivered.
func (c *client) data(m *message) (string, error) {
	if _, _, err := c.cmd(354, "", "DATA"); err != nil {
		return "", err
	}
	c.trace.Notef("sending the message")
	dw := c.w.DotWriter()
	readErr, writeErr := m.writeTo(&crlfWriter{w: dw})
	if readErr != nil {
		return "", readErr
	}
	if writeErr != nil {
		return "", writeErr
	}
	c.trace.Send(".")
	if err := dw.Close(); err != nil {
		return "", err
	}
	wire.QuickAck(c.conn) // as in cmd
	code, msg, err := c.reply(250)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d %s", code, strings.ReplaceAll(msg, "\n", " ")), nil
}

// quit ends the conversation politely; its failure does not matter.
func (c *client) quit() {
	c.cmd(221, "", "QUIT")
}

// classify gives an SMTP failure its Kind: authentication refusals are
// Auth, a recipient refused as unknown is NotFound, 421 (service not
// available) is Unavailable, other unexpected replies are Protocol, each
// wrapping the reply as a *fetch.ReplyError; network failures keep their
// own kinds.
func classify(err error, stage string) error {
	var te *textproto.Error
	if errors.As(err, &te) {
		k := fetch.Protocol
		switch {
		case te.Code == 530 || te.Code == 534 || te.Code == 535 || te.Code == 538 || te.Code == 454 && stage == "AUTH":
			k = fetch.Auth
		case stage == "RCPT" && (te.Code == 550 || te.Code == 551 || te.Code == 553):
			k = fetch.NotFound
		case te.Code == 421:
			k = fetch.Unavailable
		}
		return &fetch.Error{Kind: k, Err: fmt.Errorf("the relay refused %s: %w", stage, &fetch.ReplyError{Code: te.Code, Text: te.Msg})}
	}
	if errors.Is(err, io.EOF) {
		return fetch.Errorf(fetch.Protocol, "the relay closed the connection during %s", stage)
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	return fetch.Wrap(fetch.KindOf(err), fmt.Errorf("%s: %w", stage, err))
}
