package mailto

import "io"

// crlfWriter turns every line end of what it is given into CR LF: a CR LF
// stays, a lone CR and a lone LF each become CR LF. Put before the DATA
// dot-writer, it leaves no bare CR or LF in the message, so that no relay
// can read a line end where the message has none (SMTP smuggling, RFC 5321
// §2.3.8), and dots are stuffed at every line start a relay sees.
type crlfWriter struct {
	w      io.Writer
	lastCR bool // the last byte given was a CR, already written as CR LF
	buf    []byte
}

func (c *crlfWriter) Write(p []byte) (int, error) {
	buf := c.buf[:0]
	for _, b := range p {
		switch {
		case b == '\n' && c.lastCR:
			c.lastCR = false
		case b == '\r' || b == '\n':
			buf = append(buf, '\r', '\n')
			c.lastCR = b == '\r'
		default:
			buf = append(buf, b)
			c.lastCR = false
		}
	}
	if cap(buf) <= 64<<10 {
		c.buf = buf
	}
	if _, err := c.w.Write(buf); err != nil {
		return 0, err
	}
	return len(p), nil
}
