package nntp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/textproto"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
	"github.com/rfc1738/fetch/url"
)

// session is one NNTP connection, ready for reader commands: greeted, in
// reader mode, authenticated when the server asked. It tracks the selected
// group so that several articles of one group need one GROUP command.
// A session is used by one request at a time.
type session struct {
	key   poolKey
	raw   *wire.Conn // the TCP connection, with idle deadlines
	nc    net.Conn   // raw, or a TLS client over raw
	r     *textproto.Reader
	w     *textproto.Writer
	trace *fetch.Trace
	creds *url.Userinfo
	// prompt asks for a password the credentials lack; nil when no one
	// can answer.
	prompt func(label string, secret bool) (string, error)

	idle    time.Duration // each whole reply (a status line, a short block) must come within it
	stop    func() bool   // ends the current request's Watch
	group   string        // the group selected by the last GROUP, or ""
	authed  bool
	noOver  bool // the server answered OVER with 500: use XOVER
	replies int  // status lines read for the current request
	broken  bool // an I/O or framing failure: never reuse
}

// bufSize is the size of the read buffer; a status line must fit in it.
const bufSize = 32 << 10

// dial connects to the target's server, starts TLS for nntps and snews
// (resuming a session kept in sessions where it can), reads the greeting,
// and switches the server to reader mode when it asks for that. The session is tied to ctx until release.
func dial(ctx context.Context, req *fetch.Request, t *target, key poolKey, sessions *wire.TLSSessions) (*session, error) {
	raw, err := wire.Dial(ctx, req, "tcp", t.addr())
	if err != nil {
		return nil, err
	}
	s := &session{key: key, raw: raw, nc: raw, trace: req.Trace, creds: req.Credentials(), prompt: req.Prompt}
	s.stop = raw.Watch(ctx)
	if t.tls {
		tc := tls.Client(raw, sessions.Config(req.TLS, t.host))
		if err := tc.HandshakeContext(ctx); err != nil {
			s.close()
			k := fetch.KindOf(err)
			if k != fetch.Timeout && !errors.Is(err, context.Canceled) {
				k = fetch.Connect
			}
			return nil, fetch.Wrap(k, err)
		}
		s.trace.Notef("TLS %s with %s", tls.VersionName(tc.ConnectionState().Version), t.host)
		s.nc = tc
	}
	s.idle = req.EffectiveIdleTimeout()
	s.r = textproto.NewReader(bufio.NewReaderSize(s.nc, bufSize))
	s.w = textproto.NewWriter(bufio.NewWriter(s.nc))
	if err := s.start(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// start reads the greeting and asks for reader mode when the server is
// mode-switching (RFC 3977 §5.3): its CAPABILITIES list MODE-READER, not
// READER. A server too old for CAPABILITIES is sent MODE READER anyway, as
// readers have always done (RFC 2980 §2.3).
func (s *session) start() error {
	r, err := s.readReply()
	if err != nil {
		return err
	}
	if r.Code != 200 && r.Code != 201 {
		s.broken = true
		return replyError("greeting", r)
	}
	r, err = s.cmd("CAPABILITIES")
	if err != nil {
		return err
	}
	modeReader := true
	if r.Code == 101 {
		caps, err := s.readShortBlock(64 << 10)
		if err != nil {
			return err
		}
		var reader, switching bool
		for _, line := range strings.Split(string(caps), "\n") {
			f := strings.Fields(strings.ToUpper(line))
			if len(f) == 0 {
				continue
			}
			reader = reader || f[0] == "READER"
			switching = switching || f[0] == "MODE-READER"
		}
		modeReader = switching && !reader
	}
	if !modeReader {
		return nil
	}
	r, err = s.cmd("MODE READER")
	if err != nil {
		return err
	}
	switch {
	case r.Code == 200 || r.Code == 201:
		s.group = ""
		return nil
	case r.Code == 502 || r.Code == 400:
		s.broken = true
		return replyError("MODE READER", r)
	case r.Code >= 500:
		return nil // an old server that knows no modes
	}
	return replyError("MODE READER", r)
}

// send writes one command line, refusing a line with CR, LF, NUL or TAB.
// shown is what the trace records (the line with a password masked).
func (s *session) send(line, shown string) error {
	if err := checkLine(line); err != nil {
		return err
	}
	s.trace.Send(shown)
	if err := s.w.PrintfLine("%s", line); err != nil {
		return s.ioErr(err)
	}
	// A reply is awaited now: a server that writes it in pieces with
	// Nagle's algorithm on waits for the first to be acknowledged.
	wire.QuickAck(s.nc)
	return nil
}

// readReply reads one status line, bounded by maxReplyLine.
func (s *session) readReply() (reply, error) {
	s.raw.SetReplyTimeout(s.idle)
	line, err := s.readLine()
	s.raw.SetReplyTimeout(0)
	if err != nil {
		return reply{}, err
	}
	s.trace.Recv(line)
	r, err := parseReply(line)
	if err != nil {
		s.broken = true
		return reply{}, err
	}
	s.replies++
	return r, nil
}

// readLine reads one line without its CR LF, at most maxReplyLine bytes.
func (s *session) readLine() (string, error) {
	b, err := s.r.R.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull || len(b) > maxReplyLine:
		s.broken = true
		return "", fetch.Errorf(fetch.Protocol, "reply line longer than %d bytes", maxReplyLine)
	case err == io.EOF && len(b) == 0:
		s.broken = true
		return "", fetch.Errorf(fetch.Incomplete, "the server closed the connection")
	case err != nil:
		return "", s.ioErr(err)
	}
	b = bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
	return string(b), nil
}

// readShortBlock reads a multi-line block that is small by nature
// (CAPABILITIES, HEAD), dot-unstuffed, at most max bytes.
func (s *session) readShortBlock(max int64) ([]byte, error) {
	s.raw.SetReplyTimeout(s.idle)
	b, err := io.ReadAll(io.LimitReader(newDotReader(s.r.R), max+1))
	s.raw.SetReplyTimeout(0)
	if err != nil {
		return nil, s.ioErr(err)
	}
	if int64(len(b)) > max {
		s.broken = true
		return nil, fetch.Errorf(fetch.Protocol, "multi-line reply longer than %d bytes", max)
	}
	return b, nil
}

// cmd sends a command and reads its status line. When the server answers
// 480 (authentication required, RFC 4643 §2.2), it authenticates with the
// session's credentials and sends the command again, once.
func (s *session) cmd(line string) (reply, error) {
	if err := s.send(line, line); err != nil {
		return reply{}, err
	}
	r, err := s.readReply()
	if err != nil || r.Code != 480 || s.authed {
		return r, err
	}
	if err := s.auth(line); err != nil {
		return reply{}, err
	}
	if err := s.send(line, line); err != nil {
		return reply{}, err
	}
	return s.readReply()
}

// auth runs AUTHINFO USER and PASS (RFC 4643 §2.3). The password is
// traced as ****.
func (s *session) auth(asked string) error {
	c := s.creds
	if c == nil {
		return fetch.Errorf(fetch.Auth, "%s: the server requires authentication (480) and no credentials were given", asked)
	}
	if err := checkLine(c.Username); err != nil {
		return err
	}
	r, err := s.cmd1("AUTHINFO USER "+c.Username, "AUTHINFO USER "+c.Username)
	if err != nil {
		return err
	}
	if r.Code == 381 {
		pw := c.Password
		if !c.HasPassword {
			if s.prompt == nil {
				return fetch.Errorf(fetch.Auth, "the server wants a password for user %q and none was given", c.Username)
			}
			if pw, err = s.prompt("NNTP password for "+c.Username+": ", true); err != nil {
				return fetch.Errorf(fetch.Auth, "asking for the password of %q: %w", c.Username, err)
			}
		}
		if err := checkLine(pw); err != nil {
			return fetch.Errorf(fetch.Refused, "the password holds a CR, LF, NUL or TAB (RFC 1738 §6)")
		}
		r, err = s.cmd1("AUTHINFO PASS "+pw, "AUTHINFO PASS ****")
		if err != nil {
			return err
		}
	}
	if r.Code != 281 {
		return replyError("AUTHINFO", r)
	}
	s.authed = true
	return nil
}

// cmd1 sends a line and reads its reply, without the 480 retry.
func (s *session) cmd1(line, shown string) (reply, error) {
	if err := s.send(line, shown); err != nil {
		return reply{}, err
	}
	return s.readReply()
}

// ioErr marks the session broken and classifies an I/O error: a deadline
// is a Timeout, a cancel stays a cancel, and a connection that ended or
// was reset is an incomplete transfer.
func (s *session) ioErr(err error) error {
	s.broken = true
	return transferErr(err, "the connection failed")
}

// transferErr classifies an error met while reading or writing.
func transferErr(err error, what string) error {
	if k := fetch.KindOf(err); k == fetch.Timeout || errors.Is(err, context.Canceled) {
		return fetch.Wrap(k, err)
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fetch.Errorf(fetch.Incomplete, "%s: the server closed the connection", what)
	}
	return fetch.Errorf(fetch.Incomplete, "%s: %w", what, err)
}

// selectGroup sends GROUP unless the group is already selected, and
// returns the reply's fields: count, low and high article numbers.
func (s *session) selectGroup(group string, always bool) (count, low, high int64, err error) {
	if s.group == group && !always {
		return -1, -1, -1, nil
	}
	r, err := s.cmd("GROUP " + group)
	if err != nil {
		return 0, 0, 0, err
	}
	if r.Code != 211 {
		s.group = ""
		return 0, 0, 0, replyError("GROUP "+group, r)
	}
	f := strings.Fields(r.Text)
	if len(f) < 3 {
		s.broken = true
		return 0, 0, 0, fetch.Errorf(fetch.Protocol, "GROUP %s: malformed reply %q", group, clip(r.String()))
	}
	var n [3]int64
	for i := range n {
		v, ok := parseNumber(f[i])
		if !ok {
			s.broken = true
			return 0, 0, 0, fetch.Errorf(fetch.Protocol, "GROUP %s: malformed reply %q", group, clip(r.String()))
		}
		n[i] = v
	}
	s.group = group
	return n[0], n[1], n[2], nil
}

func parseNumber(s string) (int64, bool) {
	if !digits(s) || len(s) > 18 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		v = v*10 + int64(s[i]-'0')
	}
	return v, true
}

// close ends the request's Watch and closes the connection.
func (s *session) close() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
	s.nc.Close()
}

// quit says goodbye to an idle session's server and closes it; the reply
// is not awaited.
func (s *session) quit() {
	s.w.PrintfLine("QUIT")
	s.close()
}
