package fetchtest

import (
	"fmt"
	"io"
	"runtime"
	"testing"
)

// recorder is a testing.TB that notes failures instead of reporting them.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) {
	r.failed = append(r.failed, fmt.Sprint(args...))
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// pipeBody is a body whose Close ends a blocked Read with io.EOF (as if
// the transfer were complete) when eof is set, else with an error.
type pipeBody struct {
	*io.PipeReader
	w   *io.PipeWriter
	eof bool
}

func (b pipeBody) Close() error {
	if b.eof {
		return b.w.Close()
	}
	return b.PipeReader.Close()
}

func TestCloseAbortsRead(t *testing.T) {
	for _, eof := range []bool{false, true} {
		r, w := io.Pipe()
		rec := &recorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			CloseAbortsRead(rec, pipeBody{r, w, eof})
		}()
		<-done
		if failed := len(rec.failed) > 0; failed != eof {
			t.Errorf("Close ending the Read with io.EOF %v: failures %q", eof, rec.failed)
		}
	}
}
