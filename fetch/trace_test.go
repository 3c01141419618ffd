package fetch

import (
	"strings"
	"testing"
)

// A zero Trace, like a nil one, traces nothing and does not panic.
func TestTraceZero(t *testing.T) {
	var tr Trace
	tr.Send("USER x")
	tr.Recv("331")
	tr.Notef("note %d", 1)
	tr.WithPrefix("[1] ").Send("x")
	var nilTrace *Trace
	nilTrace.Send("x")

	var b strings.Builder
	NewTrace(&b).WithPrefix("[2] ").Recv("220 ready")
	if got := b.String(); got != "[2] < 220 ready\n" {
		t.Errorf("trace = %q", got)
	}
}

// Server text in a trace cannot act on the terminal.
func TestTraceSanitizes(t *testing.T) {
	var b strings.Builder
	tr := NewTrace(&b)
	tr.Recv("530 \x1b]0;PWNED\x07\x1b[2J")
	tr.Notef("server says %q", "ok") // already quoted: unchanged
	want := "< 530 \\x1b]0;PWNED\\x07\\x1b[2J\n* server says \"ok\"\n"
	if got := b.String(); got != want {
		t.Errorf("trace = %q, want %q", got, want)
	}
}

// TestTraceNilFormatsNothing: a note to a nil or zero Trace costs no
// formatting (handlers note things on every request, traced or not).
func TestTraceNilFormatsNothing(t *testing.T) {
	for _, tr := range []*Trace{nil, {}} {
		if n := testing.AllocsPerRun(100, func() { tr.Notef("connecting to %s:%d", "example.com", 21) }); n != 0 {
			t.Errorf("Notef on %#v: %v allocations, want 0", tr, n)
		}
	}
}
