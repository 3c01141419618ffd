package main

import (
	"os"
	"testing"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestMain fails the run when goroutines outlive the tests. With
// FETCH_TEST_MAIN=1 in its environment the test binary is the command
// itself (main), for the tests that run it as a process of its own to
// kill it.
func TestMain(m *testing.M) {
	if os.Getenv("FETCH_TEST_MAIN") == "1" {
		main()
	}
	fetchtest.Main(m)
}
