package mailto

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run when goroutines started by the tests outlive
// them (a session or connection left open).
func TestMain(m *testing.M) {
	// The fuzzing engine's signal.Notify starts os/signal's goroutine,
	// which lives as long as the process: start it before counting.
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	signal.Stop(c)
	before := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		// Closed connections and servers wind down asynchronously: give
		// them a moment before calling what remains a leak.
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<20)
			stacks := string(buf[:runtime.Stack(buf, true)])
			fmt.Fprintf(os.Stderr, "%d goroutines leaked (%d before the tests):\n%s\n", n-before, before, strings.TrimSpace(stacks))
			code = 1
		}
	}
	os.Exit(code)
}
