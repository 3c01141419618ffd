package prospero

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rfc1738/fetch/fetch"
)

// maxTrailer bounds what may follow the DATA token in a CONTENTS reply.
const maxTrailer = 64 << 10

// contents asks for a file's bytes and returns them as a stream, once the
// reply's first line has shown it to be a CONTENTS attribute:
//
//	ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA <token>
//
// The token is the whole file, quoted where needed; it is unquoted as the
// packets arrive, so memory stays flat whatever the file's size.
func (h *Handler) contents(s *session, req *fetch.Request, t target) (io.ReadCloser, error) {
	m, err := h.ask(s, req, contentsLines(t))
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(m, 32<<10)
	for {
		toks, err := headTokens(br, 6)
		if err != nil {
			return nil, err
		}
		if len(toks) == 0 {
			return nil, fetch.Errorf(fetch.Protocol, "GET-OBJECT-INFO CONTENTS: empty reply")
		}
		if toks[0] == "VERSION" || toks[0] == "WARNING" {
			line, err := readLine(br)
			if err != nil && err != io.EOF {
				return nil, wrapReply(err)
			}
			req.Trace.Recv(joinLine(toks, line))
			continue
		}
		if toks[0] != "ATTRIBUTE" || len(toks) < 6 || toks[3] != "CONTENTS" || toks[5] != "DATA" {
			line, err := readLine(br)
			if err != nil && err != io.EOF {
				return nil, wrapReply(err)
			}
			all := joinLine(toks, line)
			req.Trace.Recv(all)
			rest, err := tokenize(line)
			if err != nil {
				return nil, wrapReply(err)
			}
			if err := replyError(append(toks, rest...), "GET-OBJECT-INFO CONTENTS"); err != nil {
				return nil, err
			}
			return nil, fetch.Errorf(fetch.Protocol, "GET-OBJECT-INFO CONTENTS: unexpected reply %q", truncate(all))
		}
		req.Trace.Recv(strings.Join(toks, " ") + " ...")
		return &contentsBody{s: s, br: br, data: &dataReader{r: br}}, nil
	}
}

// headTokens reads up to n tokens from the start of a reply line, stopping
// early at its end (leaving the LF unread), and leaves the reader just
// before the next token. Each token is bounded by maxLine.
func headTokens(br *bufio.Reader, n int) ([]string, error) {
	var toks []string
	for len(toks) < n {
		if err := skipSpace(br); err != nil {
			if err == io.EOF {
				return toks, nil
			}
			return nil, err
		}
		if c, _ := br.Peek(1); len(c) == 1 && c[0] == '\n' {
			return toks, nil
		}
		d := &dataReader{r: br}
		tok, err := io.ReadAll(io.LimitReader(d, maxLine+1))
		if err != nil {
			return nil, wrapReply(err)
		}
		if len(tok) > maxLine {
			return nil, fetch.Errorf(fetch.Protocol, "reply token longer than %d bytes", maxLine)
		}
		toks = append(toks, string(tok))
	}
	if err := skipSpace(br); err != nil && err != io.EOF {
		return nil, err
	}
	return toks, nil
}

// skipSpace consumes spaces and tabs (not LF).
func skipSpace(br *bufio.Reader) error {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return err
		}
		if !isSpace(c) {
			return br.UnreadByte()
		}
	}
}

// contentsBody streams a file's unquoted bytes. When the DATA token ends
// it reads the rest of the reply, so that the exchange completes (and the
// final ACK goes out), before reporting io.EOF.
type contentsBody struct {
	s    *session
	br   *bufio.Reader
	data *dataReader
	err  error
	once sync.Once
	// closed is set by Close, which a Read in another goroutine may
	// race with: Read checks it rather than sharing err.
	closed atomic.Bool
}

func (b *contentsBody) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, errClosed
	}
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.data.Read(p)
	switch {
	case err == io.EOF:
		b.err = b.finish()
	case errors.Is(err, errUnterminated):
		b.err = fetch.Errorf(fetch.Protocol, "the CONTENTS reply ends inside a quote")
	case err != nil:
		b.err = wrapReply(err)
	}
	if n > 0 {
		return n, nil
	}
	return 0, b.err
}

// finish drains what follows the token (its line's LF) to the end of the
// reply.
func (b *contentsBody) finish() error {
	n, err := io.Copy(io.Discard, io.LimitReader(b.br, maxTrailer+1))
	if err != nil {
		return wrapReply(err)
	}
	if n > maxTrailer {
		return fetch.Errorf(fetch.Protocol, "more than %d bytes follow the CONTENTS data", maxTrailer)
	}
	return io.EOF
}

// Close ends the exchange and closes the socket; it is safe to call twice.
func (b *contentsBody) Close() error {
	b.once.Do(func() {
		b.closed.Store(true)
		b.s.close() // a Read waiting on the socket ends
	})
	return nil
}

var errClosed = fetch.Errorf(fetch.Usage, "read after Close")

// joinLine rebuilds a reply line for the trace from its head tokens and the
// rest.
func joinLine(toks []string, rest string) string {
	s := strings.Join(toks, " ")
	if rest != "" {
		s += " " + rest
	}
	return s
}
