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
