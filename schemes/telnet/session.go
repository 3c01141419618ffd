package telnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	ztelnet "github.com/ziutek/telnet"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/wire"
)

// Session is an open telnet connection seen as the text stream of the
// Network Virtual Terminal (RFC 854): Read returns the server's output with
// the telnet commands removed, Write sends text. Option negotiation is
// answered underneath by github.com/ziutek/telnet (ECHO and SUPPRESS-GO-AHEAD
// are accepted, NAWS is answered with the window size, everything else is
// refused).
//
// Write turns every line ending (CR, LF or CR LF) into the CR LF the NVT
// requires and doubles the IAC byte, so a script writes "ls\n" and a raw
// terminal's Enter key ("\r") alike. Reads wait without an idle limit, for
// a session waits on its user: set a deadline with SetReadDeadline, use
// Expect with a timeout, or cancel the context the session was opened with.
// Each Write waits at most the request's idle timeout for the server to
// accept the bytes.
//
// Read and Expect may be called from one goroutine while Write is called
// from another. Close ends the session and is safe to call more than once.
// A clean close by the server is io.EOF; a reset connection is an error of
// Kind Incomplete.
type Session struct {
	raw   net.Conn
	tc    *ztelnet.Conn
	idle  time.Duration
	trace *fetch.Trace
	ctx   context.Context
	stop  func() bool

	dlMu sync.Mutex // guards rdl, wdl and the deadlines set on raw
	rdl  time.Time  // the caller's read deadline; zero means none
	wdl  time.Time  // the caller's write deadline; zero means none

	rmu     sync.Mutex // serializes Read and Expect; guards pending
	pending []byte     // output read by Expect past its match

	wmu    sync.Mutex // serializes Write; guards lastCR and wbuf
	lastCR bool       // the last byte written was a CR turned into CR LF
	wbuf   []byte

	scan commandScan // the server's commands as read: only the reader uses it

	nawsMu   sync.Mutex // guards the fields below
	width    int        // the window size NAWS reports
	height   int
	nawsOn   bool // the client has sent WILL NAWS, and no DONT NAWS came since
	nawsSkip bool // the library's own NAWS subnegotiation is under way

	closeOnce sync.Once
}

var _ io.ReadWriteCloser = (*Session)(nil)

// newSession wraps the connection conn (not yet used) as a Session whose
// writes wait at most idle, and ties it to ctx until Close. NAWS reports
// width×height.
func newSession(ctx context.Context, conn net.Conn, idle time.Duration, trace *fetch.Trace, width, height int) *Session {
	s := &Session{raw: conn, ctx: ctx, idle: idle, trace: trace, width: width, height: height}
	s.tc, _ = ztelnet.NewConn(lineSide{Conn: conn, s: s}) // NewConn never fails
	s.stop = context.AfterFunc(ctx, func() {
		s.dlMu.Lock()
		s.raw.SetDeadline(wire.Past())
		s.dlMu.Unlock()
	})
	return s
}

// lineSide is the connection as the telnet library sees it: its writes (the
// session's text and the library's option replies alike) wait at most the
// idle timeout, and its reads are watched for the server's DONT NAWS,
// which the library ignores (see Session.watchNAWS).
type lineSide struct {
	net.Conn
	s *Session
}

func (w lineSide) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	if n > 0 {
		w.s.watchNAWS(p[:n])
	}
	return n, err
}

func (w lineSide) Write(p []byte) (int, error) {
	if w.s.replaceNAWS(p) {
		return len(p), nil
	}
	w.s.armWrite()
	if len(p) >= 3 && p[0] == iac && p[1] >= will && p[1] <= dont {
		w.s.trace.Send(describe(p))
	}
	return w.Conn.Write(p)
}

// replaceNAWS swallows the library's malformed NAWS subnegotiation (see
// libNAWSStart) and sends the session's window size, correctly encoded, in
// its place. It reports whether p was swallowed.
func (s *Session) replaceNAWS(p []byte) bool {
	s.nawsMu.Lock()
	defer s.nawsMu.Unlock()
	switch {
	case bytes.Equal(p, libWillNAWS):
		s.nawsOn = true
	case bytes.Equal(p, libNAWSStart):
		s.nawsSkip = true
		return true
	case s.nawsSkip && bytes.Equal(p, libNAWSSizes):
		return true
	case s.nawsSkip && bytes.Equal(p, libNAWSEnd):
		s.nawsSkip = false
		s.sendNAWS() // a failure shows on the connection's next use
		return true
	}
	return false
}

// sendNAWS sends the window size, with nawsMu held.
func (s *Session) sendNAWS() error {
	s.trace.Send(fmt.Sprintf("IAC SB NAWS %d %d IAC SE", s.width, s.height))
	s.armWrite()
	_, err := s.raw.Write(nawsCommand(s.width, s.height))
	return err
}

// SetWindowSize sets the window size NAWS reports (RFC 1073) and, once
// the server has asked for it, tells the server, as a terminal does when
// its window changes.
func (s *Session) SetWindowSize(width, height int) error {
	if width <= 0 || height <= 0 {
		return fetch.Errorf(fetch.Usage, "window size %dx%d: both must be positive", width, height)
	}
	s.nawsMu.Lock()
	defer s.nawsMu.Unlock()
	s.width, s.height = width, height
	if s.nawsOn && !s.nawsSkip {
		if err := s.dead(); err != nil {
			return err
		}
		if err := s.sendNAWS(); err != nil {
			return fetch.Classify(err)
		}
	}
	return nil
}

// Telnet command bytes (RFC 854), for the trace.
const (
	iac  = 255
	will = 251
	dont = 254
)

// describe names a negotiation command such as IAC WILL ECHO.
func describe(p []byte) string {
	verbs := map[byte]string{251: "WILL", 252: "WONT", 253: "DO", 254: "DONT"}
	opts := map[byte]string{1: "ECHO", 3: "SUPPRESS-GO-AHEAD", 24: "TERMINAL-TYPE", 31: "NAWS", 32: "TERMINAL-SPEED", 33: "LFLOW", 34: "LINEMODE", 35: "X-DISPLAY", 36: "OLD-ENVIRON", 39: "NEW-ENVIRON", 0: "BINARY", 5: "STATUS", 6: "TIMING-MARK"}
	o, ok := opts[p[2]]
	if !ok {
		o = "option " + itoa(int(p[2]))
	}
	return "IAC " + verbs[p[1]] + " " + o
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [4]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// dead returns the context's cause once the session's context is done.
func (s *Session) dead() error {
	if s.ctx.Err() == nil {
		return nil
	}
	err := context.Cause(s.ctx)
	return fetch.Wrap(fetch.KindOf(err), err)
}

// armWrite sets the write deadline for one write: the idle timeout from
// now, or the caller's write deadline when that comes first.
func (s *Session) armWrite() {
	s.dlMu.Lock()
	defer s.dlMu.Unlock()
	if s.dead() != nil {
		return
	}
	d := time.Now().Add(s.idle)
	if !s.wdl.IsZero() && s.wdl.Before(d) {
		d = s.wdl
	}
	s.raw.SetWriteDeadline(d)
}

// setReadDeadline puts t (zero: none) on the connection, unless the
// context is done.
func (s *Session) setReadDeadline(t time.Time) {
	s.dlMu.Lock()
	defer s.dlMu.Unlock()
	if s.dead() != nil {
		return
	}
	s.raw.SetReadDeadline(t)
}

// SetReadDeadline sets the deadline for Read and Expect (zero: none), as
// net.Conn's does; a pending Read is woken.
func (s *Session) SetReadDeadline(t time.Time) error {
	s.dlMu.Lock()
	s.rdl = t
	s.dlMu.Unlock()
	s.setReadDeadline(t)
	return nil
}

// SetWriteDeadline sets a deadline for Write (zero: only the idle timeout
// applies to each Write).
func (s *Session) SetWriteDeadline(t time.Time) error {
	s.dlMu.Lock()
	s.wdl = t
	s.dlMu.Unlock()
	return nil
}

// SetDeadline sets both the read and the write deadline.
func (s *Session) SetDeadline(t time.Time) error {
	s.SetWriteDeadline(t)
	return s.SetReadDeadline(t)
}

// Read reads the server's output, telnet commands removed. It returns
// io.EOF when the server closed the connection.
func (s *Session) Read(p []byte) (int, error) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	return s.read(p)
}

// read reads with rmu held: first what Expect left over, then the wire.
func (s *Session) read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(s.pending) > 0 {
		n := copy(p, s.pending)
		s.pending = s.pending[n:]
		return n, nil
	}
	for {
		if err := s.dead(); err != nil {
			return 0, err
		}
		n, err := s.tc.Read(p)
		if err != nil && ignorable(err) {
			// The library met a telnet command it does not know (NOP,
			// DM, AYT, ...) and has consumed it: carry on.
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != nil {
			err = s.readErr(err)
		}
		return n, err
	}
}

// ignorable reports whether err is the telnet library's complaint about a
// command it does not handle, which leaves the stream in a sound state.
func ignorable(err error) bool {
	var ne net.Error
	return !errors.As(err, &ne) && err != io.EOF && strings.HasPrefix(err.Error(), "unknown command")
}

// readErr classifies a read failure.
func (s *Session) readErr(err error) error {
	switch {
	case err == io.EOF:
		return io.EOF
	case s.dead() != nil:
		return s.dead()
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, net.ErrClosed):
		return fetch.Wrap(fetch.Incomplete, err)
	}
	return fetch.Classify(err)
}

// Write sends p as NVT text: each CR, LF or CR LF becomes CR LF, and IAC is
// doubled. It returns len(p) on success.
func (s *Session) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.dead(); err != nil {
		return 0, err
	}
	buf := s.wbuf[:0]
	for _, c := range p {
		switch {
		case c == '\n' && s.lastCR:
			s.lastCR = false
		case c == '\r' || c == '\n':
			buf = append(buf, '\r', '\n')
			s.lastCR = c == '\r'
		default:
			buf = append(buf, c)
			s.lastCR = false
		}
	}
	if cap(buf) <= 64<<10 {
		s.wbuf = buf
	}
	if _, err := s.tc.Write(buf); err != nil {
		if d := s.dead(); d != nil {
			return 0, d
		}
		return 0, fetch.Classify(err)
	}
	// An answer (an echo, a prompt) is awaited now: a server that
	// writes it in pieces with Nagle's algorithm on waits for the first
	// to be acknowledged.
	wire.QuickAck(s.raw)
	return len(p), nil
}

// writeLine sends one line of a login (no CR, LF or NUL inside), tracing
// it as shown.
func (s *Session) writeLine(line, shown string) error {
	if strings.ContainsAny(line, "\r\n\x00") {
		return fetch.Errorf(fetch.Refused, "a login line would hold a CR, LF or NUL (RFC 1738 §6)")
	}
	s.trace.Send(shown)
	_, err := s.Write([]byte(line + "\r\n"))
	return err
}

// Close ends the session: it closes the connection. It is safe to call
// more than once and always returns nil.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.stop()
		s.raw.Close()
	})
	return nil
}
