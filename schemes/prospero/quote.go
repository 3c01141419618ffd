package prospero

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Prospero v5 lines are whitespace-separated tokens. A token may hold a
// quoted part anywhere in it: between two ' characters, spaces and line
// feeds are ordinary, and '' stands for one '. The token ends at the first
// whitespace outside quotes ("18' bytes'" is the token "18 bytes"; "''" is
// the empty token).

// maxLine bounds one logical reply line (a quoted token may span several
// physical lines): 64 KiB, far more than any LINK or ATTRIBUTE line needs.
const maxLine = 64 << 10

// errUnterminated reports a quote left open at the end of a line.
var errUnterminated = errors.New("unterminated ' quote")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// quote returns s as one Prospero token: unchanged when it holds no
// whitespace and no ' and is not empty, else between ' characters with
// each ' doubled.
func quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\r\n'") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// tokenize splits one logical line (without its final LF) into tokens,
// removing the quoting. An unterminated quote is an error.
func tokenize(line string) ([]string, error) {
	var toks []string
	var b strings.Builder
	i := 0
	for {
		for i < len(line) && (isSpace(line[i]) || line[i] == '\n') {
			i++
		}
		if i == len(line) {
			return toks, nil
		}
		b.Reset()
		inQuote := false
		for ; i < len(line); i++ {
			c := line[i]
			if inQuote {
				if c != '\'' {
					b.WriteByte(c)
				} else if i+1 < len(line) && line[i+1] == '\'' {
					b.WriteByte('\'')
					i++
				} else {
					inQuote = false
				}
				continue
			}
			if isSpace(c) || c == '\n' {
				break
			}
			if c == '\'' {
				inQuote = true
				continue
			}
			b.WriteByte(c)
		}
		if inQuote {
			return toks, errUnterminated
		}
		toks = append(toks, b.String())
	}
}

// readLine reads one logical line from r: up to an LF outside quotes, which
// is consumed but not returned. It returns io.EOF at the end of the reply
// with nothing read, and the last line even when it lacks its LF. A line
// longer than maxLine is an error.
func readLine(r *bufio.Reader) (string, error) {
	var b []byte
	inQuote := false
	for {
		chunk, err := r.ReadSlice('\n')
		for _, c := range chunk {
			if c == '\'' {
				inQuote = !inQuote // '' toggles twice: still right
			}
		}
		if len(b)+len(chunk) > maxLine {
			return "", fmt.Errorf("reply line longer than %d bytes", maxLine)
		}
		b = append(b, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			if len(b) == 0 {
				return "", io.EOF
			}
			if inQuote {
				return "", errUnterminated
			}
			return string(b), nil
		case err != nil:
			return "", err
		case !inQuote:
			return string(b[:len(b)-1]), nil
		}
	}
}

// dataReader streams the unquoted bytes of one token from r: the DATA token
// of a CONTENTS reply, which holds a whole file. It stops at the first
// whitespace outside quotes, which it leaves unread, or at the end of r.
type dataReader struct {
	r       *bufio.Reader
	inQuote bool
	done    bool
}

// Read unquotes into p. At the token's end it returns io.EOF; an open
// quote at the end of the reply is errUnterminated.
func (d *dataReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && !d.done {
		buf, err := d.r.Peek(1)
		if len(buf) == 0 {
			if n > 0 {
				return n, nil // report the error on the next call
			}
			if err == io.EOF {
				d.done = true
				if d.inQuote {
					return 0, errUnterminated
				}
				return 0, io.EOF
			}
			return 0, err
		}
		buf, _ = d.r.Peek(d.r.Buffered())
		if d.inQuote {
			i := bytes.IndexByte(buf, '\'')
			if i != 0 {
				if i < 0 {
					i = len(buf)
				}
				c := copy(p[n:], buf[:i])
				n += c
				d.r.Discard(c)
				continue
			}
			// A ' ends the quote unless another follows it.
			two, _ := d.r.Peek(2)
			if len(two) == 2 && two[1] == '\'' {
				p[n] = '\''
				n++
				d.r.Discard(2)
			} else {
				d.inQuote = false
				d.r.Discard(1)
			}
			continue
		}
		i := 0
		for i < len(buf) && buf[i] != '\'' && buf[i] != '\n' && !isSpace(buf[i]) {
			i++
		}
		c := copy(p[n:], buf[:i])
		n += c
		d.r.Discard(c)
		if c < i {
			break
		}
		if i < len(buf) {
			if buf[i] == '\'' {
				d.inQuote = true
				d.r.Discard(1)
			} else {
				d.done = true
			}
		}
	}
	if n == 0 && d.done {
		return 0, io.EOF
	}
	return n, nil
}
