package fetchtest

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Main runs a package's tests and then fails the run when goroutines that
// the tests started outlive them: a connection's reader left behind, a
// context watch never stopped, a listener never closed. Goroutines of
// closed connections may take a moment to return, so it waits up to five
// seconds before calling what remains a leak. Use it as the package's
// TestMain:
//
//	func TestMain(m *testing.M) { fetchtest.Main(m) }
func Main(m *testing.M) {
	// os/signal's goroutine, once started, lives as long as the process
	// (the fuzzing engine and terminal code start it): start it first.
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	signal.Stop(c)
	before := goroutineIDs()
	code := m.Run()
	if code == 0 {
		var left []string
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if left = newGoroutines(before); len(left) == 0 || time.Now().After(deadline) {
				break
			}
		}
		if len(left) > 0 {
			fmt.Fprintf(os.Stderr, "%d goroutines outlived the tests:\n\n%s\n", len(left), strings.Join(left, "\n\n"))
			code = 1
		}
	}
	os.Exit(code)
}

// stacks returns the stack of every goroutine, one string each.
func stacks() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Split(strings.TrimSpace(string(buf[:n])), "\n\n")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// goroutineIDs returns the "goroutine N" headers of the goroutines running.
func goroutineIDs() map[string]bool {
	ids := map[string]bool{}
	for _, s := range stacks() {
		ids[header(s)] = true
	}
	return ids
}

func header(stack string) string {
	h, _, _ := strings.Cut(stack, " [")
	return h
}

// newGoroutines returns the stacks of goroutines not in before, other than
// the one asking.
func newGoroutines(before map[string]bool) []string {
	var out []string
	for i, s := range stacks() {
		if i == 0 || before[header(s)] {
			continue // the first stack is the caller's own
		}
		out = append(out, s)
	}
	return out
}
