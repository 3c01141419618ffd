package main

import (
	"testing"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestMain fails the run when goroutines outlive the tests.
func TestMain(m *testing.M) { fetchtest.Main(m) }
