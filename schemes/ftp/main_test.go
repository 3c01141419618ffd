package ftp

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run when goroutines of this package outlive the
// tests: a pooled connection's reader, a context watch, a data listener.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		var left string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); runtime.Gosched() {
			if left = leaked(); left == "" {
				break
			}
		}
		if left != "" {
			fmt.Fprintf(os.Stderr, "goroutines left running:\n%s\n", left)
			code = 1
		}
	}
	os.Exit(code)
}

func leaked() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "schemes/ftp.") && !strings.Contains(g, "TestMain") && !strings.Contains(g, "leaked") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}
