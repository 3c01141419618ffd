package mailto

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// Bounds on the message header, which is read whole before sending.
const (
	maxHeaderLine = 64 << 10 // one header line, continuation lines apart
	maxHeader     = 1 << 20  // the whole header block
)

// message is a message to send: its header block as given, what is to be
// added to it, and the rest of the stream (the body).
type message struct {
	header []byte        // the given header lines, verbatim
	added  []string      // header lines to add ("To: ..."), without CR LF
	first  []byte        // a line that ended the header without a blank line: the body's start
	body   *bufio.Reader // the rest
	from   string        // the From header's first address, or ""
	msgID  string        // the Message-ID, given or added
	has    map[string]bool
}

// readMessage reads the header block of r (RFC 5322 §2.2). A message that
// does not begin with a header field is all body.
func readMessage(r io.Reader) (*message, error) {
	m := &message{body: bufio.NewReaderSize(r, maxHeaderLine), has: map[string]bool{}}
	var fromValue []byte
	inFrom := false
	for {
		line, err := readLine(m.body)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(line) == 0 {
			return m.finish(fromValue) // EOF
		}
		switch {
		case isBlank(line):
			return m.finish(fromValue)
		case line[0] == ' ' || line[0] == '\t':
			if len(m.header) == 0 {
				m.first = line
				return m.finish(fromValue)
			}
			if inFrom {
				fromValue = append(fromValue, line...)
			}
		default:
			name, ok := fieldName(line)
			if !ok {
				m.first = line
				return m.finish(fromValue)
			}
			name = strings.ToLower(name)
			m.has[name] = true
			inFrom = name == "from"
			if inFrom {
				fromValue = append([]byte(nil), line[len(name)+1:]...)
			}
			if name == "message-id" {
				m.msgID = strings.TrimSpace(string(line[len(name)+1:]))
			}
		}
		m.header = append(m.header, line...)
		if len(m.header) > maxHeader {
			return nil, fetch.Errorf(fetch.Usage, "the message header is longer than %d bytes", maxHeader)
		}
		if err != nil { // EOF after a last header line without a newline
			if !bytes.HasSuffix(m.header, []byte("\n")) {
				m.header = append(m.header, '\n')
			}
			return m.finish(fromValue)
		}
	}
}

func (m *message) finish(fromValue []byte) (*message, error) {
	if len(fromValue) > 0 {
		v := strings.Join(strings.Fields(string(fromValue)), " ")
		if list, err := mail.ParseAddressList(v); err == nil && len(list) > 0 {
			m.from = list[0].Address
		}
	}
	return m, nil
}

// readLine returns the next line with its line ending, refusing one longer
// than maxHeaderLine. At the end of the stream it returns what is left and
// io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, fetch.Errorf(fetch.Usage, "a message header line is longer than %d bytes", maxHeaderLine)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fetch.Wrap(fetch.Other, fmt.Errorf("reading the message: %w", err))
	}
	return append([]byte(nil), line...), err
}

func isBlank(line []byte) bool {
	return len(bytes.TrimRight(line, "\r\n")) == 0
}

// fieldName returns the name of a header field line: printable ASCII but
// ':' up to the first ':' (RFC 5322 §2.2).
func fieldName(line []byte) (string, bool) {
	for i, c := range line {
		switch {
		case c == ':' && i > 0:
			return string(line[:i]), true
		case c < 33 || c > 126:
			return "", false
		}
	}
	return "", false
}

// complete adds the header fields the message lacks: To (the mailto
// address), From (the envelope sender), Date and Message-ID.
func (m *message) complete(to, from, domain string, now time.Time) {
	if !m.has["from"] {
		m.added = append(m.added, "From: "+from)
	}
	if !m.has["to"] {
		m.added = append(m.added, "To: "+to)
	}
	if !m.has["date"] {
		m.added = append(m.added, "Date: "+now.Format(time.RFC1123Z))
	}
	if !m.has["message-id"] {
		var b [8]byte
		rand.Read(b[:])
		m.msgID = fmt.Sprintf("<%d.%s@%s>", now.UnixNano(), hex.EncodeToString(b[:]), domain)
		m.added = append(m.added, "Message-ID: "+m.msgID)
	}
}

// writeTo writes the whole message to w (a DATA dot-writer, which turns LF
// into CR LF and stuffs dots): the given header, the added fields, a blank
// line, and the body, streamed. It returns the error of reading the
// message apart from the error of writing it, so that a failed read can
// abort the transfer rather than end it.
func (m *message) writeTo(w io.Writer) (readErr, writeErr error) {
	if _, err := w.Write(m.header); err != nil {
		return nil, err
	}
	for _, f := range m.added {
		if _, err := io.WriteString(w, f+"\r\n"); err != nil {
			return nil, err
		}
	}
	if _, err := io.WriteString(w, "\r\n"); err != nil {
		return nil, err
	}
	if _, err := w.Write(m.first); err != nil {
		return nil, err
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := m.body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return nil, werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return fetch.Wrap(fetch.Other, fmt.Errorf("reading the message: %w", err)), nil
		}
	}
}
