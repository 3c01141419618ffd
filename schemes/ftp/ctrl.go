package ftp

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// Bounds on what a server may send on the control connection.
const (
	maxLineLen  = 8 << 10  // one reply line
	maxReplyLen = 64 << 10 // one whole (multi-line) reply
)

// ctrl is one FTP control connection: the command channel of RFC 959,
// logged in, with what it knows about its server and its state.
type ctrl struct {
	raw    *wire.Conn // the TCP connection, with idle deadlines
	conn   net.Conn   // raw, or a TLS client over raw
	limit  *lineLimit
	br     *bufio.Reader
	r      *textproto.Reader
	w      *bufio.Writer
	trace  *fetch.Trace
	secret string // the password, scrubbed from anything traced or returned

	tls     bool // the control connection is encrypted (implicit or AUTH TLS)
	protP   bool // data connections are encrypted too (PROT P)
	tlsConf *tls.Config

	loginDir string          // the PWD reply after login, "" when not absolute
	cwds     []string        // the CWD arguments sent since login, in order
	replies  int             // replies read since the current request began
	typ      string          // the TYPE in force, "" when unknown
	noEPSV   bool            // the server refused EPSV
	noEPRT   bool            // the server refused EPRT
	noSize   bool            // the server has no SIZE
	feat     map[string]bool // FEAT's features, once asked
	stop     func() bool     // stops the context watch of the current request
	idle     time.Duration   // the longest wait for one whole reply
}

// replyErr is the failure a reply means: an *fetch.Error of the given
// kind whose cause names the command (password masked) and holds the
// reply as a *fetch.ReplyError. note, when not empty, says more.
func replyErr(kind fetch.Kind, cmd string, code int, msg, note string) error {
	re := &fetch.ReplyError{Code: code, Text: msg}
	cmd = fetch.Sanitize(cmd) // a name from the URL may hold anything
	if note != "" {
		return &fetch.Error{Kind: kind, Err: fmt.Errorf("%s: server replied %w (%s)", cmd, re, note)}
	}
	return &fetch.Error{Kind: kind, Err: fmt.Errorf("%s: server replied %w", cmd, re)}
}

// replyKind classifies an unexpected reply (CONTRACT §5). The transient
// refusals of RFC 959 (421 service closing, 425 no data connection, 450
// file busy) are Unavailable: trying later may succeed; 426, a transfer
// aborted, is Incomplete.
func replyKind(code int) fetch.Kind {
	switch {
	case code == 530 || code == 331 || code == 332 || code == 532:
		return fetch.Auth
	case code == 550:
		return fetch.NotFound
	case code == 551:
		// RFC 959's "page type unknown", which goftp.io/server and
		// others send for a file that is not there.
		return fetch.NotFound
	case code == 426:
		return fetch.Incomplete
	case code == 421 || code == 425 || code == 450:
		return fetch.Unavailable
	}
	return fetch.Protocol
}

// newCtrl wraps a dialed connection. The greeting is not read yet.
func newCtrl(raw *wire.Conn, trace *fetch.Trace) *ctrl {
	c := &ctrl{raw: raw, trace: trace}
	c.setConn(raw)
	return c
}

// setConn (re)builds the line reader and writer over nc.
func (c *ctrl) setConn(nc net.Conn) {
	c.conn = nc
	c.limit = &lineLimit{r: nc}
	c.br = bufio.NewReader(c.limit)
	c.r = textproto.NewReader(c.br)
	c.w = bufio.NewWriter(nc)
}

// watch ties the connection to ctx until release.
func (c *ctrl) watch(ctx context.Context, trace *fetch.Trace) {
	c.trace = trace
	c.stop = c.raw.Watch(ctx)
}

// setIdle sets the longest wait for one whole reply: the request's idle
// timeout.
func (c *ctrl) setIdle(req *fetch.Request) {
	c.idle = req.EffectiveIdleTimeout()
}

// unwatch ends the tie to the current request's context and reports
// whether the connection is still usable (the context did not fire).
func (c *ctrl) unwatch() bool {
	ok := true
	if c.stop != nil {
		ok = c.stop()
		c.stop = nil
	}
	c.trace = nil
	return ok
}

// scrub hides the password in s.
func (c *ctrl) scrub(s string) string {
	if c.secret != "" && len(c.secret) >= 3 {
		s = strings.ReplaceAll(s, c.secret, "****")
	}
	return s
}

// send writes one command line, and any queued before it. shown is what
// the trace and errors say (the line with its password masked).
func (c *ctrl) send(line, shown string) error {
	if err := c.queue(line, shown); err != nil {
		return err
	}
	if err := c.w.Flush(); err != nil {
		return c.ioErr(shown, err)
	}
	// A reply is awaited now: a server that writes it in pieces with
	// Nagle's algorithm on waits for the first to be acknowledged.
	wire.QuickAck(c.conn)
	return nil
}

// queue adds a command line to the next send, which writes both at once.
func (c *ctrl) queue(line, shown string) error {
	if i := strings.IndexAny(line, "\r\n\x00"); i >= 0 {
		return fetch.Errorf(fetch.Refused, "%s: a decoded CR, LF or NUL would reach the command line (RFC 1738 §6)", fetch.Sanitize(shown))
	}
	c.trace.Send(shown)
	c.w.WriteString(line)
	c.w.WriteString("\r\n")
	return nil
}

// read reads one reply, whole, within the idle timeout: the reply as a
// whole, not each of its bytes, so that a server dripping a byte at a time
// cannot hold the client for longer.
func (c *ctrl) read(shown string) (int, string, error) {
	return c.readWithin(shown, c.idle)
}

// readWithin reads one reply, which must arrive whole within d. When it
// does not, the connection is dead (out of step) and the error is of Kind
// Timeout. The text returned is the server's, unescaped (the password
// scrubbed): escape it before it is shown.
func (c *ctrl) readWithin(shown string, d time.Duration) (int, string, error) {
	c.limit.reset()
	if d <= 0 {
		d = fetch.DefaultIdleTimeout
	}
	// The bound is the connection's read deadline, not a timer: a reply
	// costs no allocation, and a reply already buffered no system call.
	c.raw.SetReplyTimeout(d)
	code, msg, err := c.r.ReadResponse(0)
	c.raw.SetReplyTimeout(0)
	if c.limit.err != nil && (err != nil || c.br.Buffered() == 0 && c.limit.line != 0) {
		// The connection failed while the reply was being read: a line
		// it cut short is no reply, although textproto takes it for one.
		return 0, "", c.ioErr(shown, c.limit.err)
	}
	if err != nil {
		var pe textproto.ProtocolError
		if errors.As(err, &pe) {
			return 0, "", fetch.Errorf(fetch.Protocol, "%s: malformed reply: %s", fetch.Sanitize(shown), fetch.Sanitize(c.scrub(string(pe))))
		}
		return 0, "", c.ioErr(shown, err)
	}
	c.replies++
	msg = c.scrub(msg)
	if c.trace != nil { // nothing to format for no one
		lines := strings.Split(msg, "\n")
		for i, l := range lines {
			sep := "-"
			if i == len(lines)-1 {
				sep = " "
			}
			c.trace.Recv(fmt.Sprintf("%d%s%s", code, sep, l))
		}
	}
	return code, msg, nil
}

// ioErr classifies a failure of the control connection itself.
func (c *ctrl) ioErr(shown string, err error) error {
	k := fetch.KindOf(err)
	var fe *fetch.Error
	if errors.As(err, &fe) && fe.Err != nil {
		err = fe.Err // its Kind is k, said once
	}
	if k == fetch.Other || errors.Is(err, io.EOF) {
		k = fetch.Incomplete
	}
	return &fetch.Error{Kind: k, Err: fmt.Errorf("%s: control connection: %w", fetch.Sanitize(shown), err)}
}

// cmd sends a command and reads its reply.
func (c *ctrl) cmd(line string) (int, string, error) {
	return c.cmdShown(line, line)
}

// cmdShown is cmd with a masked form of the line for traces and errors.
func (c *ctrl) cmdShown(line, shown string) (int, string, error) {
	if err := c.send(line, shown); err != nil {
		return 0, "", err
	}
	return c.read(shown)
}

// expect sends a command and fails unless the reply's first digit is one
// of want ("2" for success, "23" for 2xx or 3xx).
func (c *ctrl) expect(line, want string) (int, string, error) {
	code, msg, err := c.cmd(line)
	if err != nil {
		return code, msg, err
	}
	if !strings.ContainsRune(want, rune('0'+code/100)) {
		return code, msg, c.unexpected(line, code, msg)
	}
	return code, msg, nil
}

// unexpected turns a reply into an *fetch.Error of the right Kind.
func (c *ctrl) unexpected(shown string, code int, msg string) error {
	return replyErr(replyKind(code), shown, code, msg, "")
}

// close ends the connection: QUIT when polite, bounded by a short
// deadline, then the socket.
func (c *ctrl) close(polite bool) {
	if polite {
		c.raw.Conn.SetDeadline(time.Now().Add(2 * time.Second))
		if c.send("QUIT", "QUIT") == nil {
			c.readWithin("QUIT", 2*time.Second)
		}
	}
	c.conn.Close()
}

// lineLimit bounds reply lines and replies as they are read from the
// connection, so that a hostile server cannot make the client grow
// without bound: textproto itself has no limit.
type lineLimit struct {
	r     io.Reader
	line  int   // bytes since the last '\n'
	total int   // bytes since reset
	err   error // the connection's failure since reset, io.EOF included
}

func (l *lineLimit) reset() { l.total, l.err = 0, nil }

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err != nil {
		l.err = err
	}
	for _, b := range p[:n] {
		l.line++
		if b == '\n' {
			l.line = 0
		}
		if l.line > maxLineLen {
			return 0, textproto.ProtocolError(fmt.Sprintf("reply line longer than %d bytes", maxLineLen))
		}
	}
	l.total += n
	if l.total > maxReplyLen+4096 {
		return 0, textproto.ProtocolError(fmt.Sprintf("reply longer than %d bytes", maxReplyLen))
	}
	return n, err
}
