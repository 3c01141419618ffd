package fetch

import (
	"fmt"
	"io"
	"sync"
)

// Trace writes a protocol trace, one line per event: "> " for a line sent,
// "< " for a line received, "* " for a note. Its methods are safe for
// concurrent use and do nothing on a nil or zero Trace. Every line is
// passed through Sanitize, so server text in a trace cannot act on a
// terminal. Handlers mask passwords before tracing ("PASS ****").
type Trace struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
}

// NewTrace returns a Trace writing to w, or nil when w is nil.
func NewTrace(w io.Writer) *Trace {
	if w == nil {
		return nil
	}
	return &Trace{mu: new(sync.Mutex), w: w}
}

// WithPrefix returns a Trace that writes to the same place with every line
// prefixed by p (the CLI uses "[n] " when transfers run in parallel).
func (t *Trace) WithPrefix(p string) *Trace {
	if t == nil || t.w == nil {
		return nil
	}
	return &Trace{mu: t.mu, w: t.w, prefix: t.prefix + p}
}

// Send records a line sent to the server.
func (t *Trace) Send(line string) { t.line("> ", line) }

// Recv records a line received from the server.
func (t *Trace) Recv(line string) { t.line("< ", line) }

// Notef records a note, such as the choice of a transfer type. Nothing is
// formatted for a nil or zero Trace.
func (t *Trace) Notef(format string, args ...any) {
	if t == nil || t.w == nil {
		return
	}
	t.line("* ", fmt.Sprintf(format, args...))
}

func (t *Trace) line(mark, s string) {
	if t == nil || t.w == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, "%s%s%s\n", t.prefix, mark, Sanitize(s))
}
